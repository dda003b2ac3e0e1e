// 4×4 matrices, column-major as glTF and web-ifc store them, for placing shared geometry with node
// transforms instead of baking each occurrence into its own vertices.
import { MathUtils, type mat4, type vec3, type vec4 } from '@gltf-transform/core'

export type Matrix = number[]

export const IDENTITY: Matrix = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

export function multiply(a: Matrix, b: Matrix): Matrix {
  const out = new Array<number>(16).fill(0)
  for (let column = 0; column < 4; column++) {
    for (let row = 0; row < 4; row++) {
      let sum = 0
      for (let k = 0; k < 4; k++) sum += (a[k * 4 + row] ?? 0) * (b[column * 4 + k] ?? 0)
      out[column * 4 + row] = sum
    }
  }
  return out
}

/** The inverse of an affine matrix (last row 0 0 0 1); undefined when it is singular. */
export function invertAffine(m: Matrix): Matrix | undefined {
  const e = (k: number): number => m[k] ?? 0
  const [a, b, c, d, f, g, h, i, j] = [e(0), e(4), e(8), e(1), e(5), e(9), e(2), e(6), e(10)]
  const det = a * (f * j - g * i) - b * (d * j - g * h) + c * (d * i - f * h)
  if (!Number.isFinite(det) || Math.abs(det) < 1e-12) return undefined
  // Row-major inverse of [[a b c] [d f g] [h i j]] = adjugate / det.
  const r = [
    (f * j - g * i) / det,
    (c * i - b * j) / det,
    (b * g - c * f) / det,
    (g * h - d * j) / det,
    (a * j - c * h) / det,
    (c * d - a * g) / det,
    (d * i - f * h) / det,
    (b * h - a * i) / det,
    (a * f - b * d) / det,
  ] as [number, number, number, number, number, number, number, number, number]
  const [tx, ty, tz] = [e(12), e(13), e(14)]
  return [
    r[0],
    r[3],
    r[6],
    0,
    r[1],
    r[4],
    r[7],
    0,
    r[2],
    r[5],
    r[8],
    0,
    -(r[0] * tx + r[1] * ty + r[2] * tz),
    -(r[3] * tx + r[4] * ty + r[5] * tz),
    -(r[6] * tx + r[7] * ty + r[8] * tz),
    1,
  ]
}

/**
 * Whether a node can carry the matrix: glTF node transforms are translation·rotation·scale, so a
 * matrix with shear (a non-uniform scale under a rotation) or a projective row cannot be one.
 */
export function isTrs(m: Matrix): boolean {
  if (Math.abs((m[3] ?? 0) + (m[7] ?? 0) + (m[11] ?? 0)) > 1e-9 || Math.abs((m[15] ?? 0) - 1) > 1e-9)
    return false
  const translation: vec3 = [0, 0, 0]
  const rotation: vec4 = [0, 0, 0, 1]
  const scale: vec3 = [1, 1, 1]
  MathUtils.decompose(m as unknown as mat4, translation, rotation, scale)
  if (scale.some((s) => !Number.isFinite(s) || Math.abs(s) < 1e-12)) return false
  const back = MathUtils.compose(translation, rotation, scale, [...IDENTITY] as unknown as mat4)
  const magnitude = Math.max(1, ...m.map(Math.abs))
  return m.every((value, k) => Math.abs(value - (back[k] ?? 0)) <= 1e-6 * magnitude)
}

export function isIdentity(m: Matrix): boolean {
  return m.every((value, k) => value === IDENTITY[k])
}

export function sameMatrix(a: Matrix, b: Matrix): boolean {
  return a.length === b.length && a.every((value, k) => value === b[k])
}
