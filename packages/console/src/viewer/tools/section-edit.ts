// Edits of the section state the panel and the tool make (pure: no three.js). A plane keeps the
// side its normal points to; an axis plane through the model's centre keeps the lower half (X, Y, Z
// below the centre), which for a building is a plan cut (Y) and, seen from the default front
// camera, takes the near half away (Z).
import {
  DEFAULT_CAP,
  MAX_PLANES,
  type SectionBox,
  type SectionPlane,
  type SectionSettings,
} from '../state/section.ts'
import type { Vec3 } from '../state/slice.ts'

export type Axis = 'X' | 'Y' | 'Z'
const AXES: Axis[] = ['X', 'Y', 'Z']

function freshId(s: SectionSettings): string {
  for (let i = 1; ; i++) if (!s.planes.some((p) => p.id === `plane-${i}`)) return `plane-${i}`
}

/** The axis a plane is square to, or null for a plane at an angle. */
export function axisOf(plane: SectionPlane): Axis | null {
  const i = plane.normal.findIndex((n) => Math.abs(n) > 0.9999)
  return AXES[i] ?? null
}

/** Where the plane is: its coordinate on its axis, or its distance from the origin along its normal. */
export function positionOf(plane: SectionPlane): number {
  const i = plane.normal.findIndex((n) => Math.abs(n) > 0.9999)
  const n = plane.normal[i]
  return n === undefined ? -plane.constant : -plane.constant / n
}

export function withPosition(plane: SectionPlane, position: number): SectionPlane {
  const i = plane.normal.findIndex((n) => Math.abs(n) > 0.9999)
  const n = plane.normal[i]
  return { ...plane, constant: n === undefined ? -position : -position * n }
}

/** The range of positions that cut the model (its bounding sphere: centre, radius). */
export function rangeOf(plane: SectionPlane, centre: Vec3, radius: number): [number, number] {
  const i = plane.normal.findIndex((n) => Math.abs(n) > 0.9999)
  const mid = i >= 0 ? (centre[i] ?? 0) : plane.normal.reduce((sum, n, k) => sum + n * (centre[k] ?? 0), 0)
  return [mid - radius, mid + radius]
}

export function canAddPlane(s: SectionSettings): boolean {
  return s.planes.length < MAX_PLANES
}

/** A plane with this normal through this point, added (enabled, and the master switch on). */
export function addPlane(s: SectionSettings, normal: Vec3, point: Vec3): SectionSettings {
  if (!canAddPlane(s)) return s
  const constant = -normal.reduce((sum, n, k) => sum + n * (point[k] ?? 0), 0)
  const plane: SectionPlane = { id: freshId(s), normal, constant, enabled: true, capColor: DEFAULT_CAP }
  return { ...s, enabled: true, planes: [...s.planes, plane] }
}

export function addAxisPlane(s: SectionSettings, axis: Axis, centre: Vec3): SectionSettings {
  const normal: Vec3 = [axis === 'X' ? -1 : 0, axis === 'Y' ? -1 : 0, axis === 'Z' ? -1 : 0]
  return addPlane(s, normal, centre)
}

export function updatePlane(s: SectionSettings, id: string, change: Partial<SectionPlane>): SectionSettings {
  return { ...s, planes: s.planes.map((p) => (p.id === id ? { ...p, ...change } : p)) }
}

/** The same plane keeping the other side. */
export function flipPlane(s: SectionSettings, id: string): SectionSettings {
  const p = s.planes.find((q) => q.id === id)
  if (!p) return s
  return updatePlane(s, id, { normal: p.normal.map((n) => -n || 0) as Vec3, constant: -p.constant || 0 })
}

export function removePlane(s: SectionSettings, id: string): SectionSettings {
  return { ...s, planes: s.planes.filter((p) => p.id !== id) }
}

export function setBox(s: SectionSettings, min: Vec3, max: Vec3): SectionSettings {
  const box: SectionBox = s.box
    ? { ...s.box, min, max, enabled: true }
    : { id: 'box', min, max, enabled: true, capColor: DEFAULT_CAP }
  return { ...s, enabled: true, box }
}

/** One side of the box moved; the other side is pushed along so that min ≤ max stays true. */
export function moveBoxSide(
  s: SectionSettings,
  axis: number,
  side: 'min' | 'max',
  value: number,
): SectionSettings {
  if (!s.box) return s
  const min = [...s.box.min] as Vec3
  const max = [...s.box.max] as Vec3
  if (side === 'min') {
    min[axis] = value
    max[axis] = Math.max(max[axis] ?? value, value)
  } else {
    max[axis] = value
    min[axis] = Math.min(min[axis] ?? value, value)
  }
  return { ...s, box: { ...s.box, min, max } }
}
