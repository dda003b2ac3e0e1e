// Models for the viewer's browser test (test/viewer.test.ts): a room with a red wall (selection
// colour, markers behind it) and a flat assembly of many parts (the scene tree's speed).
import { Document, type Mesh, NodeIO } from '@gltf-transform/core'

type Size = [number, number, number]
type Rgba = [number, number, number, number]

// 8 corners (index = 4x + 2y + z), 12 triangles, counter-clockwise seen from outside.
const BOX_INDICES = [
  0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3,
]

export function box(document: Document, name: string, [sx, sy, sz]: Size, color: Rgba): Mesh {
  const p: number[] = []
  for (const x of [-sx / 2, sx / 2])
    for (const y of [-sy / 2, sy / 2]) for (const z of [-sz / 2, sz / 2]) p.push(x, y, z)
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(p)))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array(BOX_INDICES)))
    .setMaterial(document.createMaterial(name).setBaseColorFactor(color))
  return document.createMesh(name).addPrimitive(primitive)
}

export function write(document: Document): Promise<Uint8Array> {
  const buffer = document.createBuffer()
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(document)
}

/**
 * Room: a red Wall (4 × 2 × 0.4, facing +z) standing on a grey Floor. Fitted, the camera looks at
 * the wall's +z face from (1, 0.8, 1.2): the centre of the canvas is on the wall.
 */
export function roomGlb(): Promise<Uint8Array> {
  const document = new Document()
  const scene = document.createScene('Scene')
  const room = document.createNode('Room')
  scene.addChild(room)
  room.addChild(document.createNode('Wall').setMesh(box(document, 'wall', [4, 2, 0.4], [0.8, 0.03, 0.03, 1])))
  const floor = box(document, 'floor', [5, 0.2, 3], [0.5, 0.5, 0.5, 1])
  room.addChild(document.createNode('Floor').setMesh(floor).setTranslation([0, -1.1, 0]))
  return write(document)
}

/** `count` named parts (one shared box mesh) in a grid under one node: a flat, long tree. */
export function assemblyGlb(count: number): Promise<Uint8Array> {
  const document = new Document()
  const scene = document.createScene('Scene')
  const root = document.createNode('Assembly')
  scene.addChild(root)
  const mesh = box(document, 'part', [0.8, 0.8, 0.8], [0.3, 0.5, 0.7, 1])
  const side = Math.ceil(Math.sqrt(count))
  for (let i = 0; i < count; i++) {
    const node = document.createNode(`Part ${i + 1}`).setMesh(mesh)
    root.addChild(node.setTranslation([i % side, 0, Math.floor(i / side)]))
  }
  return write(document)
}

/** Block: one 2 × 1 × 0.5 box centred on the origin (corners at ±1, ±0.5, ±0.25): known lengths to measure. */
export function blockGlb(): Promise<Uint8Array> {
  const document = new Document()
  const scene = document.createScene('Scene')
  scene.addChild(
    document.createNode('Block').setMesh(box(document, 'block', [2, 1, 0.5], [0.75, 0.78, 0.84, 1])),
  )
  return write(document)
}
