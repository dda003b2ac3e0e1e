// Environment and rendering: `environmentEnabled`, `environmentFile`, `environmentBrightness`,
// `environmentOrientation`, `skyboxEnabled`, `iblEnabled` and `renderMode` (docs/console.md,
// "Display"). The environments are generated in the browser (viewer/tools/environment.ts): the
// record names one of them; a URL or another system's name is never fetched (the console's CSP
// allows no other origin) and reads as the default.
import type { Slice } from './slice.ts'

/** The built-in environments: "room" (three's RoomEnvironment, a lit studio room), "neutral" (a soft grey gradient). */
const ENVIRONMENTS = ['room', 'neutral'] as const
export type EnvironmentName = (typeof ENVIRONMENTS)[number]

/**
 * "phong": shaded, smooth normals (the spec's default); "shaded-edges": shaded with the hard edges
 * (≥ 30°) drawn as dark lines; "flat": one normal per face; "wireframe": the triangles' edges only.
 */
const RENDER_MODES = ['phong', 'shaded-edges', 'flat', 'wireframe'] as const
export type RenderMode = (typeof RENDER_MODES)[number]

export const BRIGHTNESS_MAX = 4

export interface EnvironmentSettings {
  enabled: boolean
  file: EnvironmentName
  /** 0..4: scene.environmentIntensity and backgroundIntensity. */
  brightness: number
  /** Degrees around the up axis, 0 ≤ n < 360. */
  orientation: number
  skybox: boolean
  ibl: boolean
  renderMode: RenderMode
}

function oneOf<T extends string>(values: readonly T[], value: unknown, fallback: T): T {
  return values.includes(value as T) ? (value as T) : fallback
}

/** A brightness: finite numbers clamped into 0..4 (a 5 from another client is "as bright as we go"). */
function brightness(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 1
  return Math.min(Math.max(value, 0), BRIGHTNESS_MAX)
}

/** Any finite angle in degrees, brought into 0 ≤ n < 360 (−90 is 270). */
export function orientation(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 0
  const turned = value % 360
  return turned < 0 ? turned + 360 : turned
}

function renderMode(value: unknown): RenderMode {
  // "shaded" is what other viewers call the default: the same as "phong" here.
  if (value === 'shaded') return 'phong'
  return oneOf(RENDER_MODES, value, 'phong')
}

export const environmentSlice: Slice<EnvironmentSettings> = {
  defaults: () => ({
    enabled: false,
    file: 'room',
    brightness: 1,
    orientation: 0,
    skybox: false,
    ibl: false,
    renderMode: 'phong',
  }),
  read: (record) => ({
    enabled: record.environmentEnabled === true,
    file: oneOf(ENVIRONMENTS, record.environmentFile, 'room'),
    brightness: brightness(record.environmentBrightness),
    orientation: orientation(record.environmentOrientation),
    skybox: record.skyboxEnabled === true,
    ibl: record.iblEnabled === true,
    renderMode: renderMode(record.renderMode),
  }),
  write: (s) => ({
    environmentEnabled: s.enabled,
    environmentFile: s.file,
    environmentBrightness: s.brightness,
    environmentOrientation: s.orientation,
    skyboxEnabled: s.skybox,
    iblEnabled: s.ibl,
    renderMode: s.renderMode,
  }),
}
