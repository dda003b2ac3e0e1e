// Repeated CAD shapes (the screws of an assembly): occt-import-js returns every occurrence as its own
// world-space triangles, but OpenCascade tessellates a shape once and places each occurrence, so two
// occurrences have the same triangles and vertices related by one rigid motion. Found here, such a
// shape is stored once and every occurrence's node carries the motion as its transform.
import type { Matrix } from './matrix.ts'

export interface ShapeGeometry {
  position: Float32Array
  normal: Float32Array | null
  index: Uint32Array
  /** Anything else that must be equal (colours, face ranges), as a string. */
  key: string
}

/** For each shape, the earlier shape it repeats and the matrix taking that one onto it. */
export type Repeats = Map<number, { of: number; matrix: Matrix }>

export function findRepeats(shapes: readonly ShapeGeometry[]): Repeats {
  const repeats: Repeats = new Map()
  const groups = new Map<string, number[]>()
  shapes.forEach((shape, i) => {
    const key = `${shape.position.length}/${shape.index.length}/${indexHash(shape.index)}/${shape.key}`
    const originals = groups.get(key) ?? []
    const match = originals
      .map((of) => ({ of, matrix: motion(shapes[of] as ShapeGeometry, shape) }))
      .find((candidate) => candidate.matrix !== undefined)
    if (match?.matrix) repeats.set(i, { of: match.of, matrix: match.matrix })
    else groups.set(key, [...originals, i])
  })
  return repeats
}

function indexHash(index: Uint32Array): number {
  let hash = 2166136261
  for (let i = 0; i < index.length; i++) hash = Math.imul(hash ^ (index[i] ?? 0), 16777619)
  return hash >>> 0
}

type Vec = [number, number, number]

const at = (values: Float32Array, i: number): Vec => [
  values[i * 3] ?? 0,
  values[i * 3 + 1] ?? 0,
  values[i * 3 + 2] ?? 0,
]
const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
const dot = (a: Vec, b: Vec): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
const cross = (a: Vec, b: Vec): Vec => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
]

/**
 * The rigid motion (rotation + translation, column-major 4×4) taking `a` onto `b` vertex by vertex,
 * or undefined. It is solved from three well-spread vertices and then checked on every vertex
 * (and normal) to 1e-5 of the shape's size, so a coincidence never passes.
 */
function motion(a: ShapeGeometry, b: ShapeGeometry): Matrix | undefined {
  const count = a.position.length / 3
  if (count < 3) return undefined
  const p0 = at(a.position, 0)
  let i1 = 0
  let i2 = 0
  let best = 0
  for (let i = 1; i < count; i++) {
    const d = dot(sub(at(a.position, i), p0), sub(at(a.position, i), p0))
    if (d > best) [best, i1] = [d, i]
  }
  const size = Math.sqrt(best)
  const axis = sub(at(a.position, i1), p0)
  best = 0
  for (let i = 1; i < count; i++) {
    const c = cross(axis, sub(at(a.position, i), p0))
    if (dot(c, c) > best) [best, i2] = [dot(c, c), i]
  }
  if (size === 0 || Math.sqrt(best) < 1e-3 * size * size) return undefined
  const frameA = frame(p0, at(a.position, i1), at(a.position, i2))
  const frameB = frame(at(b.position, 0), at(b.position, i1), at(b.position, i2))
  // R = B·Aᵀ for orthonormal frames; t = q0 − R·p0.
  const r = (row: 0 | 1 | 2, column: 0 | 1 | 2): number =>
    frameB.reduce((sum, axisB, k) => sum + axisB[row] * (frameA[k] as Vec)[column], 0)
  const rotation = ([0, 1, 2] as const).map((row) => [r(row, 0), r(row, 1), r(row, 2)] as Vec)
  const apply = (v: Vec): Vec => rotation.map((row) => dot(row, v)) as Vec
  const q0 = at(b.position, 0)
  const moved = apply(p0)
  const t: Vec = [q0[0] - moved[0], q0[1] - moved[1], q0[2] - moved[2]]
  const tolerance = 1e-5 * size
  for (let i = 0; i < count; i++) {
    const p = apply(at(a.position, i))
    const q = at(b.position, i)
    if (
      Math.abs(p[0] + t[0] - q[0]) + Math.abs(p[1] + t[1] - q[1]) + Math.abs(p[2] + t[2] - q[2]) >
      tolerance
    ) {
      return undefined
    }
    if (a.normal && b.normal) {
      const n = apply(at(a.normal, i))
      const m = at(b.normal, i)
      if (Math.abs(n[0] - m[0]) + Math.abs(n[1] - m[1]) + Math.abs(n[2] - m[2]) > 1e-3) return undefined
    }
  }
  const [x, y, z] = rotation as [Vec, Vec, Vec]
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, t[0], t[1], t[2], 1]
}

/** An orthonormal right-handed frame from three points (a proper rotation maps frame to frame). */
function frame(p0: Vec, p1: Vec, p2: Vec): [Vec, Vec, Vec] {
  const normalize = (v: Vec): Vec => {
    const length = Math.hypot(...v) || 1
    return [v[0] / length, v[1] / length, v[2] / length]
  }
  const u = normalize(sub(p1, p0))
  const w = normalize(cross(u, sub(p2, p0)))
  return [u, cross(w, u), w]
}
