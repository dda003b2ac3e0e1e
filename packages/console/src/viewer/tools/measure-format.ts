// The dimensions' values and labels, without three.js (the panel and the unit tests use them too).
// Units: the viewer draws the optimized GLB, whose lengths are the source's: metres for glTF (by the
// spec), IFC (web-ifc outputs metres) and STEP/IGES/BREP (converted to metres, docs/conversion.md).
// STL, OBJ, PLY and the assimp formats carry no unit we keep: their labels say "u" (units).
import type { Quotation } from '../state/measure.ts'
import type { Vec3 } from '../state/slice.ts'

export type ModelUnit = 'm' | 'u'

const METRIC = new Set(['glb', 'gltf', 'ifc', 'step', 'stp', 'iges', 'igs', 'brep'])

/** The unit of a model from its file name (the conversion keeps metres for these formats). */
export function unitOfFile(name: string): ModelUnit {
  const dot = name.lastIndexOf('.')
  return dot >= 0 && METRIC.has(name.slice(dot + 1).toLowerCase()) ? 'm' : 'u'
}

function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

function length(v: Vec3): number {
  return Math.hypot(v[0], v[1], v[2])
}

function distanceOf(a: Vec3, b: Vec3): number {
  return length(sub(a, b))
}

/** The angle at `vertex` between the rays to `a` and `b`, in degrees (0 when a ray has no length). */
export function angleOf(a: Vec3, vertex: Vec3, b: Vec3): number {
  const u = sub(a, vertex)
  const v = sub(b, vertex)
  const lu = length(u)
  const lv = length(v)
  if (lu === 0 || lv === 0) return 0
  const cos = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (lu * lv)
  return (Math.acos(Math.min(1, Math.max(-1, cos))) * 180) / Math.PI
}

/**
 * A length as a label. Metres: from 1 m up "1.250 m" (to the millimetre), below it millimetres to a
 * tenth ("12.0 mm", "250.4 mm"). Unitless: three decimals ("1.250 u").
 */
export function formatLength(value: number, unit: ModelUnit): string {
  if (unit === 'u') return `${value.toFixed(3)} u`
  // Rounded first: 0.99996 m reads "1.000 m", not "1000.0 mm".
  return Math.round(value * 1000) >= 1000 ? `${value.toFixed(3)} m` : `${(value * 1000).toFixed(1)} mm`
}

function formatAngle(degrees: number): string {
  return `${degrees.toFixed(1)}°`
}

/** A dimension's label: its length, or its angle in degrees. */
export function labelOf(q: Pick<Quotation, 'type' | 'points'>, unit: ModelUnit): string {
  const [a, b, c] = q.points
  if (!a || !b) return ''
  if (q.type === 'angle') return c ? formatAngle(angleOf(a, b, c)) : ''
  return formatLength(distanceOf(a, b), unit)
}
