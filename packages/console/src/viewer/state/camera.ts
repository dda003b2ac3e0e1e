// The camera's slice: where it stands and what it looks at (`cameraPosition`: position then target,
// six numbers), its projection (`cameraType`), its field of view (`cameraFoVIndex`, a preset of
// FOV_PRESETS), the model's up (`upVector`), a fixed near plane (`zNear`) and whether restoring the
// view leaves the camera alone (`disableCamera`). docs/console.md, "Camera", has the table.
import { isVec3, numberIn, type Slice, type Vec3 } from './slice.ts'

export interface CameraPose {
  position: Vec3
  target: Vec3
}

export type Projection = 'perspective' | 'orthographic'

export const UP_VECTORS = ['X+', 'X-', 'Y+', 'Y-', 'Z+', 'Z-'] as const
export type UpVector = (typeof UP_VECTORS)[number]

/** Vertical field of view in degrees by `cameraFoVIndex`; an index outside the table reads as 0. */
export const FOV_PRESETS = [45, 30, 60, 75, 90] as const

/**
 * `zNear` of a record that never chose a near plane (the contract's default): the viewer's automatic
 * near plane. Any other positive value is a fixed near plane, in model units (metres).
 */
export const AUTOMATIC_NEAR = 0.1
/** The largest fixed near plane read (a kilometre beyond the camera clips any building). */
const MAX_NEAR = 1e5

export interface CameraSettings {
  /** null: the view keeps whatever camera the viewer has (a record saved without one). */
  pose: CameraPose | null
  projection: Projection
  /** An index of FOV_PRESETS. */
  fovIndex: number
  up: UpVector
  /** A fixed near plane in model units, or null: automatic (viewer/camera.ts fitClipPlanes). */
  near: number | null
  /** Restoring the view leaves the camera as it is (pose, projection, field of view, up, near). */
  disabled: boolean
}

function readPose(p: unknown): CameraPose | null {
  if (!Array.isArray(p) || p.length < 6) return null
  const position = p.slice(0, 3)
  const target = p.slice(3, 6)
  return isVec3(position) && isVec3(target) ? { position, target } : null
}

/** "orthographic" (any case) or 1 is orthographic; null, "perspective", 0 and anything else: perspective. */
function readProjection(value: unknown): Projection {
  if (value === 1) return 'orthographic'
  return typeof value === 'string' && value.toLowerCase() === 'orthographic' ? 'orthographic' : 'perspective'
}

function readFovIndex(value: unknown): number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) < FOV_PRESETS.length
    ? (value as number)
    : 0
}

function readNear(value: unknown): number | null {
  const near = numberIn(value, Number.MIN_VALUE, MAX_NEAR, AUTOMATIC_NEAR)
  return near === AUTOMATIC_NEAR ? null : near
}

export const cameraSlice: Slice<CameraSettings> = {
  defaults: () => ({
    pose: null,
    projection: 'perspective',
    fovIndex: 0,
    up: 'Y+',
    near: null,
    disabled: false,
  }),
  read: (record) => ({
    pose: readPose(record.cameraPosition),
    projection: readProjection(record.cameraType),
    fovIndex: readFovIndex(record.cameraFoVIndex),
    up: UP_VECTORS.find((v) => v === record.upVector) ?? 'Y+',
    near: readNear(record.zNear),
    disabled: record.disableCamera === true,
  }),
  write: (s) => ({
    cameraPosition: s.pose ? [...s.pose.position, ...s.pose.target] : [],
    cameraType: s.projection,
    cameraFoVIndex: s.fovIndex,
    upVector: s.up,
    zNear: s.near ?? AUTOMATIC_NEAR,
    disableCamera: s.disabled,
  }),
}
