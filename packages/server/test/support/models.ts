// Small models generated in code, for tests that need a real but tiny input.
import { strToU8, zipSync } from 'fflate'

/** An ASCII STL cube: 12 facets, named `solid <name>`. */
export function stlCube(name: string, size = 1): Buffer {
  const v = (x: number, y: number, z: number) => `      vertex ${x * size} ${y * size} ${z * size}\n`
  const quads: number[][][] = [
    [
      [0, 0, 0],
      [1, 0, 0],
      [1, 1, 0],
      [0, 1, 0],
    ],
    [
      [0, 0, 1],
      [0, 1, 1],
      [1, 1, 1],
      [1, 0, 1],
    ],
    [
      [0, 0, 0],
      [0, 0, 1],
      [1, 0, 1],
      [1, 0, 0],
    ],
    [
      [0, 1, 0],
      [1, 1, 0],
      [1, 1, 1],
      [0, 1, 1],
    ],
    [
      [0, 0, 0],
      [0, 1, 0],
      [0, 1, 1],
      [0, 0, 1],
    ],
    [
      [1, 0, 0],
      [1, 0, 1],
      [1, 1, 1],
      [1, 1, 0],
    ],
  ]
  let out = `solid ${name}\n`
  for (const [a, b, c, d] of quads as [number[], number[], number[], number[]][]) {
    for (const tri of [
      [a, b, c],
      [a, c, d],
    ]) {
      out += '  facet normal 0 0 0\n    outer loop\n'
      for (const p of tri) out += v(p[0] ?? 0, p[1] ?? 0, p[2] ?? 0)
      out += '    endloop\n  endfacet\n'
    }
  }
  return Buffer.from(`${out}endsolid ${name}\n`)
}

/** A zip of < 200 KB that unpacks to 96 MiB of zeros beside a tiny OBJ. */
export function zipBomb(): Buffer {
  const zeros = new Uint8Array(96 * 1024 * 1024)
  const obj = strToU8('o tri\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n')
  return Buffer.from(zipSync({ 'big.bin': zeros, 'model.obj': obj }, { level: 9 }))
}
