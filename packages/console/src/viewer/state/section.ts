// Section planes and the section box: `enabledClippingPlanes` holds at most MAX_PLANES planes and
// one box, `clippingPlanesEnabled` is the master switch (off: nothing is cut, the list is kept).
//   plane: { "type": "plane", "id": "p1", "normal": [0, 0, -1], "constant": 0.5, "enabled": true,
//            "capColor": "#d4a017" }  keeps the points p with normal·p + constant ≥ 0
//   box:   { "type": "box", "id": "box", "min": [x, y, z], "max": [x, y, z], "enabled": true,
//            "capColor": "#d4a017" }  keeps what is inside
// Reading is tolerant: a normal is scaled to unit length (the constant with it); an entry of
// another type, a malformed one, planes past the sixth and boxes past the first are dropped (and so
// are gone from the record after the next save from the console: docs/console.md).
import { isVec3, type Slice, type Vec3 } from './slice.ts'

export const MAX_PLANES = 6
export const DEFAULT_CAP = '#d4a017'
const MAX_ID = 64

export interface SectionPlane {
  id: string
  normal: Vec3
  constant: number
  enabled: boolean
  capColor: string
}

export interface SectionBox {
  id: string
  min: Vec3
  max: Vec3
  enabled: boolean
  capColor: string
}

export interface SectionSettings {
  /** The master switch (`clippingPlanesEnabled`). */
  enabled: boolean
  planes: SectionPlane[]
  box: SectionBox | null
}

type Entry = Record<string, unknown>

function colour(value: unknown): string {
  return typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value) ? value.toLowerCase() : DEFAULT_CAP
}

function id(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID ? value : fallback
}

function readPlane(e: Entry, index: number): SectionPlane | null {
  if (!isVec3(e.normal) || typeof e.constant !== 'number' || !Number.isFinite(e.constant)) return null
  const length = Math.hypot(...e.normal)
  if (length < 1e-9) return null
  const normal = e.normal.map((n) => n / length) as Vec3
  const constant = e.constant / length
  // A tiny normal with a huge constant overflows: written back it would be null, the plane lost.
  if (!Number.isFinite(constant) || !normal.every(Number.isFinite)) return null
  return {
    id: id(e.id, `plane-${index + 1}`),
    normal,
    constant,
    enabled: e.enabled !== false,
    capColor: colour(e.capColor),
  }
}

function readBox(e: Entry): SectionBox | null {
  const { min, max } = e
  if (!isVec3(min) || !isVec3(max) || min.some((v, i) => v > (max[i] ?? v))) return null
  return { id: id(e.id, 'box'), min, max, enabled: e.enabled !== false, capColor: colour(e.capColor) }
}

function entries(value: unknown): Entry[] {
  if (!Array.isArray(value)) return []
  return value.filter((e): e is Entry => typeof e === 'object' && e !== null && !Array.isArray(e))
}

export const sectionSlice: Slice<SectionSettings> = {
  defaults: () => ({ enabled: false, planes: [], box: null }),
  read(record) {
    const planes: SectionPlane[] = []
    let box: SectionBox | null = null
    for (const e of entries(record.enabledClippingPlanes)) {
      if (e.type === 'plane' && planes.length < MAX_PLANES) {
        const plane = readPlane(e, planes.length)
        if (plane && !planes.some((p) => p.id === plane.id)) planes.push(plane)
      } else if (e.type === 'box' && box === null) box = readBox(e)
    }
    return { enabled: record.clippingPlanesEnabled === true, planes, box }
  },
  write: (s) => ({
    enabledClippingPlanes: [
      ...s.planes.map((p) => ({ type: 'plane', ...p })),
      ...(s.box ? [{ type: 'box', ...s.box }] : []),
    ],
    clippingPlanesEnabled: s.enabled,
  }),
}
