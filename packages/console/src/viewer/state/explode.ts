// The exploded view: `explodedViewEnabled` and `explodedViewDistance`. The distance is how far each
// part of the exploded level moves away from the model's centre, in model radii (0 to 1: at 1 a part
// moves one bounding-sphere radius out). The record's null (a configuration never exploded) reads as
// 0; 0 is written back as null. The record holds no tree level: the viewer explodes the first level
// of the tree that branches (viewer/tools/explode.ts), so no field is needed for it.
import type { Slice } from './slice.ts'

export interface ExplodeSettings {
  enabled: boolean
  /** Model radii, 0..1. */
  distance: number
}

const EXPLODE_MAX = 1

export const explodeSlice: Slice<ExplodeSettings> = {
  defaults: () => ({ enabled: false, distance: 0 }),
  read(record) {
    const raw = record.explodedViewDistance
    // Out of range: the nearest bound (another client's larger factor still explodes, as far as ours go).
    const distance =
      typeof raw === 'number' && Number.isFinite(raw) ? Math.min(Math.max(raw, 0), EXPLODE_MAX) : 0
    return { enabled: record.explodedViewEnabled === true, distance }
  },
  write: (s) => ({
    explodedViewEnabled: s.enabled,
    explodedViewDistance: s.distance > 0 ? s.distance : null,
  }),
}
