// The models of the properties test (test/properties.test.ts): a row of grey panels whose glTF
// extras are their properties (the server reads them into the `extras` group, their mesh and
// material names into `Mesh`), and the server's IFC fixture of a wall with property sets and
// quantities in units.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Document } from '@gltf-transform/core'
import { SERVER_DIR } from './server.ts'
import { box, write } from './viewer-models.ts'

const GREY: [number, number, number, number] = [0.55, 0.55, 0.55, 1]

/** The panels' extras, left to right; the Door has none (only its mesh and material names). */
export const PANELS = [
  { name: 'Panel A', extras: { fireRating: 'REI60', width: 1.5, external: true, weight: 12.34567 } },
  { name: 'Panel B', extras: { fireRating: 'REI30', width: 0.9, external: false } },
  { name: 'Panel C', extras: { fireRating: 'REI60', width: 2.25, external: false } },
  { name: 'Panel D', extras: { fireRating: 'REI90', width: 1.2, external: true } },
  { name: 'Door', extras: null },
] as const

/** Five boxes 2.5 apart along x under "Panels", sharing one mesh (drawn instanced) and one material. */
export function panelsGlb(): Promise<Uint8Array> {
  const document = new Document()
  const root = document.createNode('Panels')
  document.createScene('Scene').addChild(root)
  const panel = box(document, 'panel', [0.8, 1.6, 0.8], GREY)
  const material = panel.listPrimitives()[0]?.getMaterial()?.setName('Concrete') ?? null
  const door = box(document, 'door', [0.8, 1.6, 0.8], GREY)
  door.listPrimitives()[0]?.setMaterial(material)
  PANELS.forEach((part, i) => {
    const node = document
      .createNode(part.name)
      .setMesh(part.extras ? panel : door)
      .setTranslation([(i - 2) * 2.5, 0, 0])
    if (part.extras) node.setExtras({ ...part.extras })
    root.addChild(node)
  })
  return write(document)
}

/** The server's hand-written IFC4 house: a south wall with Pset_WallCommon and base quantities. */
export function houseWithProperties(): Buffer {
  return readFileSync(path.join(SERVER_DIR, 'test/fixtures/conversion/house-properties.ifc'))
}

/** A row of grey panels, one per rating, each with `extras.fireRating` (the search-files test's models). */
export function ratedPanelsGlb(ratings: readonly string[]): Promise<Uint8Array> {
  const document = new Document()
  const root = document.createNode('Panels')
  document.createScene('Scene').addChild(root)
  const panel = box(document, 'panel', [0.8, 1.6, 0.8], GREY)
  ratings.forEach((fireRating, i) => {
    const node = document
      .createNode(`Panel ${i + 1}`)
      .setMesh(panel)
      .setTranslation([i * 2.5, 0, 0])
      .setExtras({ fireRating })
    root.addChild(node)
  })
  return write(document)
}
