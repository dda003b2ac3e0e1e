// The three models the browser test uploads: the server's IFC fixture, an ASCII STL cube and a
// small GLB car with named parts (generated with glTF-Transform, as the server's tests do).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Document, NodeIO } from '@gltf-transform/core'
import { stlCube as serverStlCube } from '@tessera/server/test/support/models.ts'
import { SERVER_DIR } from './server.ts'

export function ifcHouse(): Buffer {
  return readFileSync(path.join(SERVER_DIR, 'test/fixtures/conversion/small-house.ifc'))
}

/** The server tests' ASCII STL cube (one generator for both packages). */
export function stlCube(size = 1): Buffer {
  return serverStlCube('cube', size)
}

function box(document: Document, name: string, [sx, sy, sz]: [number, number, number]) {
  const p: number[] = []
  for (const x of [-sx / 2, sx / 2])
    for (const y of [-sy / 2, sy / 2]) for (const z of [-sz / 2, sz / 2]) p.push(x, y, z)
  // 8 corners (index = 4x + 2y + z), 12 triangles.
  const indices = [
    0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7,
    3,
  ]
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(p)))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array(indices)))
    .setMaterial(document.createMaterial(name).setBaseColorFactor([0.7, 0.45, 0.2, 1]))
  return document.createMesh(name).addPrimitive(primitive)
}

/** A car: Body and four Wheels under Car. */
export async function carGlb(): Promise<Uint8Array> {
  const document = new Document()
  const buffer = document.createBuffer()
  const scene = document.createScene('Scene')
  const car = document.createNode('Car')
  scene.addChild(car)
  car.addChild(document.createNode('Body').setMesh(box(document, 'body', [4, 1, 2])))
  for (let i = 0; i < 4; i++) {
    const wheel = document.createNode('Wheel').setMesh(box(document, `wheel${i}`, [0.6, 0.6, 0.2]))
    car.addChild(wheel.setTranslation([i < 2 ? -1.5 : 1.5, -0.5, i % 2 ? 1.1 : -1.1]))
  }
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(document)
}
