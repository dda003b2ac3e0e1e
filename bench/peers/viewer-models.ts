// The browser viewer bench's models (bench/viewer.ts): a GLB of many small parts in storeys, its
// boxes shared between parts (as an IFC's windows and bolts are), built with gltf-transform.
import { Document, NodeIO } from '@gltf-transform/core'

// 8 corners (index = 4x + 2y + z), 12 triangles, counter-clockwise seen from outside.
const BOX = [
  0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3,
]

/**
 * `parts` boxes (100 shapes, each with one of 10 materials: 100 distinct pairs) under 50 storeys on a
 * grid: one node per part plus the storeys.
 */
export async function partsGlb(parts: number): Promise<Uint8Array> {
  const document = new Document()
  const buffer = document.createBuffer()
  const materials = Array.from({ length: 10 }, (_, m) =>
    document.createMaterial(`m${m}`).setBaseColorFactor([0.2 + m * 0.07, 0.45, 0.7 - m * 0.04, 1]),
  )
  const shapes = Array.from({ length: 100 }, (_, s) => {
    const [sx, sy, sz] = [0.2 + (s % 7) * 0.05, 0.2 + (s % 11) * 0.04, 0.2 + (s % 5) * 0.06]
    const corners = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((c) => [c & 4 ? sx : 0, c & 2 ? sy : 0, c & 1 ? sz : 0])
    const position = document.createAccessor().setType('VEC3').setArray(new Float32Array(corners))
    const indices = document.createAccessor().setType('SCALAR').setArray(new Uint16Array(BOX))
    return document.createMesh(`box-${s}`).addPrimitive(
      document
        .createPrimitive()
        .setAttribute('POSITION', position)
        .setIndices(indices)
        .setMaterial(materials[s % 10] ?? null),
    )
  })
  const scene = document.createScene('parts')
  const storeys = Array.from({ length: 50 }, (_, s) => {
    const node = document.createNode(`Storey ${s + 1}`).setTranslation([0, s * 0.8, 0])
    scene.addChild(node)
    return node
  })
  const perStorey = Math.ceil(parts / storeys.length)
  const side = Math.ceil(Math.sqrt(perStorey))
  for (let i = 0; i < parts; i++) {
    const k = i % perStorey
    const node = document
      .createNode(`Part ${i + 1}`)
      .setMesh(shapes[i % shapes.length] ?? null)
      .setTranslation([(k % side) * 0.6, 0, Math.floor(k / side) * 0.6])
    storeys[Math.floor(i / perStorey)]?.addChild(node)
  }
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(document)
}
