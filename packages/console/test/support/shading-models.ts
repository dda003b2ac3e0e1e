// Models for the explode, x-ray and layers test (test/viewer-shading.test.ts): two storey-like
// groups of two parts each, in two materials (a blue "concrete" and an orange "steel"); and the same
// carrying IFC classes in the nodes' extras, as the IFC importer writes them (docs/conversion.md).
import { Document, type Material, type Node, NodeIO } from '@gltf-transform/core'

const BOX_INDICES = [
  0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3,
]

function boxNode(doc: Document, name: string, size: number[], at: number[], material: Material): Node {
  const p: number[] = []
  const [sx = 1, sy = 1, sz = 1] = size
  for (const x of [-sx / 2, sx / 2])
    for (const y of [-sy / 2, sy / 2]) for (const z of [-sz / 2, sz / 2]) p.push(x, y, z)
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor().setType('VEC3').setArray(new Float32Array(p)))
    .setIndices(doc.createAccessor().setType('SCALAR').setArray(new Uint16Array(BOX_INDICES)))
    .setMaterial(material)
  return doc
    .createNode(name)
    .setMesh(doc.createMesh(name).addPrimitive(primitive))
    .setTranslation(at as [number, number, number])
}

/**
 * Building › Level 1 (y 0) and Level 2 (y 2), each a wide blue slab and an orange beam on it.
 * With `ifc`, the nodes carry `ifcType` (IFCBUILDING, IFCBUILDINGSTOREY, IFCSLAB, IFCBEAM).
 */
export function levelsGlb(ifc = false): Promise<Uint8Array> {
  const doc = new Document()
  const concrete = doc.createMaterial('concrete').setBaseColorFactor([0.05, 0.15, 0.85, 1])
  const steel = doc.createMaterial('steel').setBaseColorFactor([0.95, 0.35, 0.02, 1])
  const tag = (node: Node, type: string) => (ifc ? node.setExtras({ ifcType: type }) : node)
  const building = tag(doc.createNode('Building'), 'IFCBUILDING')
  doc.createScene('Scene').addChild(building)
  for (const level of [1, 2]) {
    const y = (level - 1) * 2
    const storey = tag(doc.createNode(`Level ${level}`), 'IFCBUILDINGSTOREY')
    building.addChild(storey)
    storey.addChild(tag(boxNode(doc, `Slab ${level}`, [4, 0.4, 3], [0, y, 0], concrete), 'IFCSLAB'))
    storey.addChild(tag(boxNode(doc, `Beam ${level}`, [3, 0.5, 0.5], [0, y + 0.45, 0], steel), 'IFCBEAM'))
  }
  const buffer = doc.createBuffer()
  for (const accessor of doc.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(doc)
}
