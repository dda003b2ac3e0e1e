// The dimensions' slice (`enabledQuotations`, `quotationsEnabled`): point-to-point distances and
// three-point angles, in the model's world coordinates as loaded (the optimized GLB, Y up).
// Element shapes (docs/console.md, "Measure"):
//   { "type": "distance", "id": "q1", "points": [[x, y, z], [x, y, z]] }
//   { "type": "angle",    "id": "q2", "points": [[x, y, z], [x, y, z], [x, y, z]] }  (vertex: the middle one)
// Reading is tolerant: an entry of another type, with the wrong number of points, a non-finite
// coordinate, or a missing/duplicate id is skipped (not kept: the next save drops it), and at most
// MAX_QUOTATIONS are read.
import { isVec3, type Slice, type Vec3 } from './slice.ts'

export const MAX_QUOTATIONS = 200

export type QuotationType = 'distance' | 'angle'

export interface Quotation {
  type: QuotationType
  /** Unique within the view (the panel's list and the labels are keyed by it); at most 64 characters. */
  id: string
  /** Two points for a distance, three for an angle. */
  points: Vec3[]
}

export interface MeasureSettings {
  /** `quotationsEnabled`: the dimensions are drawn (false: kept in the view, hidden). */
  enabled: boolean
  quotations: Quotation[]
}

export const POINTS_OF: Record<QuotationType, number> = { distance: 2, angle: 3 }

function quotation(value: unknown): Quotation | null {
  if (typeof value !== 'object' || value === null) return null
  const { type, id, points } = value as Record<string, unknown>
  if (type !== 'distance' && type !== 'angle') return null
  if (typeof id !== 'string' || id.length === 0 || id.length > 64) return null
  if (!Array.isArray(points) || points.length !== POINTS_OF[type] || !points.every(isVec3)) return null
  return { type, id, points: points.map((p) => [p[0], p[1], p[2]] as Vec3) }
}

function quotations(value: unknown): Quotation[] {
  if (!Array.isArray(value)) return []
  const out: Quotation[] = []
  const ids = new Set<string>()
  for (const entry of value) {
    const q = quotation(entry)
    if (!q || ids.has(q.id)) continue
    ids.add(q.id)
    out.push(q)
    if (out.length === MAX_QUOTATIONS) break
  }
  return out
}

export const measureSlice: Slice<MeasureSettings> = {
  // Off as in a new record (the contract's default): the panel turns it on when a dimension is placed.
  defaults: () => ({ enabled: false, quotations: [] }),
  read: (record) => ({
    enabled: record.quotationsEnabled === true,
    quotations: quotations(record.enabledQuotations),
  }),
  write: (s) => ({
    quotationsEnabled: s.enabled,
    enabledQuotations: s.quotations.map((q) => ({ type: q.type, id: q.id, points: q.points })),
  }),
}
