// A small CAD-like part for the Display tool's browser test (test/viewer-environment.test.ts): a
// base plate with two blocks (boxes, no normals: GLTFLoader shades them flat) and a shaft (a
// 32-sided cylinder with smooth normals: flat and smooth shading differ on it), in light, matte
// (metalness 0) colours so that dark edge lines stand out.
import { Document, type Mesh, NodeIO } from '@gltf-transform/core'

type Rgba = [number, number, number, number]

const BOX_INDICES = [
  0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3,
]

function mesh(
  document: Document,
  name: string,
  color: Rgba,
  position: number[],
  indices: number[],
  normal?: number[],
): Mesh {
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(new Float32Array(position)))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(new Uint16Array(indices)))
    .setMaterial(
      document.createMaterial(name).setBaseColorFactor(color).setMetallicFactor(0).setRoughnessFactor(0.55),
    )
  if (normal)
    primitive.setAttribute(
      'NORMAL',
      document.createAccessor().setType('VEC3').setArray(new Float32Array(normal)),
    )
  return document.createMesh(name).addPrimitive(primitive)
}

function box(document: Document, name: string, [sx, sy, sz]: number[], color: Rgba): Mesh {
  const p: number[] = []
  for (const x of [-(sx ?? 1) / 2, (sx ?? 1) / 2])
    for (const y of [-(sy ?? 1) / 2, (sy ?? 1) / 2])
      for (const z of [-(sz ?? 1) / 2, (sz ?? 1) / 2]) p.push(x, y, z)
  return mesh(document, name, color, p, BOX_INDICES)
}

/** A cylinder along y, radius r, height h: smooth sides, flat caps. */
function cylinder(document: Document, name: string, r: number, h: number, color: Rgba): Mesh {
  const n = 32
  const p: number[] = []
  const nor: number[] = []
  const idx: number[] = []
  for (let i = 0; i <= n; i++) {
    const a = (i / n) * Math.PI * 2
    const [c, s] = [Math.cos(a), Math.sin(a)]
    p.push(r * c, -h / 2, r * s, r * c, h / 2, r * s)
    nor.push(c, 0, s, c, 0, s)
    if (i < n) idx.push(2 * i, 2 * i + 1, 2 * i + 3, 2 * i, 2 * i + 3, 2 * i + 2)
  }
  for (const [y, ny] of [
    [h / 2, 1],
    [-h / 2, -1],
  ] as const) {
    const centre = p.length / 3
    p.push(0, y, 0)
    nor.push(0, ny, 0)
    for (let i = 0; i <= n; i++) {
      const a = (i / n) * Math.PI * 2
      p.push(r * Math.cos(a), y, r * Math.sin(a))
      nor.push(0, ny, 0)
      if (i < n)
        idx.push(
          ...(ny > 0 ? [centre, centre + i + 2, centre + i + 1] : [centre, centre + i + 1, centre + i + 2]),
        )
    }
  }
  return mesh(document, name, color, p, idx, nor)
}

export function cadGlb(): Promise<Uint8Array> {
  const document = new Document()
  const scene = document.createScene('Scene')
  const part = document.createNode('Bracket')
  scene.addChild(part)
  const steel: Rgba = [0.62, 0.66, 0.72, 1]
  part.addChild(document.createNode('Plate').setMesh(box(document, 'plate', [4, 0.3, 2.4], steel)))
  for (const x of [-1.3, 1.3]) {
    const block = box(document, `block${x}`, [0.8, 1.2, 1.6], [0.85, 0.62, 0.3, 1])
    part.addChild(
      document
        .createNode(`Block ${x < 0 ? 'A' : 'B'}`)
        .setMesh(block)
        .setTranslation([x, 0.75, 0]),
    )
  }
  const shaft = cylinder(document, 'shaft', 0.35, 2.2, [0.35, 0.55, 0.8, 1])
  part.addChild(
    document
      .createNode('Shaft')
      .setMesh(shaft)
      .setTranslation([0, 0.75, 0])
      .setRotation([0, 0, Math.SQRT1_2, Math.SQRT1_2]),
  )
  const buffer = document.createBuffer()
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return new NodeIO().writeBinary(document)
}
