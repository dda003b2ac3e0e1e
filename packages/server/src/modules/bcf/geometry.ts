// Between Tessera's scene and BCF's world. Tessera's records hold the converted model's coordinates:
// glTF's, Y up (docs/conversion.md: IFC's Z-up world turned by (x, y, z) → (x, z, −y)); BCF holds
// IFC's world, Z up. Both are in metres. An IFC that the conversion moved towards the origin
// (COORDINATE_TO_ORIGIN) keeps how far as `shift` (scene's modelOriginShift): a BCF position is the
// turned position plus it, so other tools see the viewpoints where the file's own coordinates are.
//
// A camera: Tessera keeps a position and the target it orbits (`cameraPosition`), BCF a position and
// a direction. Tessera writes the direction as target − position, so its length is the distance to
// the target and a Tessera import finds the target again; a reader that wants a unit vector
// normalises it (BCF does not require one). A unit direction (another tool's) has lost the target:
// it is put TARGET_DISTANCE ahead.
//
// A section plane: Tessera keeps the points p with normal · p + constant ≥ 0; BCF cuts away what
// lies on the side its direction points to, so direction = −normal, through the point −constant ·
// normal. A section box is six such planes, written after the others.
import { CAMERA_FOV_PRESETS } from '../../contract/index.ts'
import type { BcfCamera, BcfPlane, Vec3 } from './model.ts'

export const NO_SHIFT: Vec3 = [0, 0, 0]

/** A direction (or a position, with `shift`) from Tessera's Y-up scene into BCF's Z-up world. */
export const toBcf = ([x, y, z]: Vec3, shift: Vec3 = NO_SHIFT): Vec3 => [
  x + shift[0],
  -z + shift[1],
  y + shift[2],
]
export const fromBcf = ([x, y, z]: Vec3, shift: Vec3 = NO_SHIFT): Vec3 => [
  x - shift[0],
  z - shift[2],
  -(y - shift[1]),
]

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
const scale = (a: Vec3, k: number): Vec3 => [a[0] * k, a[1] * k, a[2] * k]
const dot = (a: Vec3, b: Vec3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
const length = (a: Vec3) => Math.hypot(...a)

/** Where a target is put along a unit direction (another tool's camera), in metres. */
export const TARGET_DISTANCE = 10
/** The aspect ratio written when the view has no snapshot to take it from. */
export const DEFAULT_ASPECT = 16 / 9

export interface Pose {
  position: Vec3
  target: Vec3
  projection: 'perspective' | 'orthographic'
  fovIndex: number
}

const radians = (degrees: number) => (degrees * Math.PI) / 180

/** BCF's up: the model's up (Z) made square to the direction; Y when looking straight up or down. */
function upFor(direction: Vec3): Vec3 {
  const d = scale(direction, 1 / length(direction))
  const up = sub([0, 0, 1], scale(d, d[2]))
  const size = length(up)
  return size < 1e-6 ? [0, 1, 0] : scale(up, 1 / size)
}

export function cameraToBcf(pose: Pose, aspectRatio: number, shift: Vec3 = NO_SHIFT): BcfCamera {
  let direction = toBcf(sub(pose.target, pose.position))
  if (length(direction) < 1e-9) direction = [0, 1, 0]
  const fieldOfView = CAMERA_FOV_PRESETS[pose.fovIndex] ?? CAMERA_FOV_PRESETS[0]
  return {
    kind: pose.projection,
    position: toBcf(pose.position, shift),
    direction,
    up: upFor(direction),
    fieldOfView,
    viewToWorldScale: 2 * length(direction) * Math.tan(radians(fieldOfView) / 2),
    aspectRatio,
  }
}

/** The preset nearest `degrees`. */
export function nearestFovIndex(degrees: number): number {
  let best = 0
  CAMERA_FOV_PRESETS.forEach((preset, index) => {
    if (Math.abs(preset - degrees) < Math.abs((CAMERA_FOV_PRESETS[best] ?? 0) - degrees)) best = index
  })
  return best
}

export function cameraFromBcf(camera: BcfCamera, shift: Vec3 = NO_SHIFT): Pose {
  const direction = fromBcf(camera.direction)
  const size = length(direction)
  const unit = Math.abs(size - 1) < 1e-6
  const half = radians(CAMERA_FOV_PRESETS[0]) / 2
  let distance = unit ? TARGET_DISTANCE : size
  let fov = camera.fieldOfView
  if (camera.kind === 'orthographic') {
    // Tessera's orthographic camera sees 2 · distance · tan(fov / 2) at its target.
    if (unit) distance = camera.viewToWorldScale / (2 * Math.tan(half))
    fov = (2 * Math.atan(camera.viewToWorldScale / (2 * distance)) * 180) / Math.PI
  }
  const position = fromBcf(camera.position, shift)
  return {
    position,
    target: add(position, scale(direction, distance / size)),
    projection: camera.kind,
    fovIndex: nearestFovIndex(fov),
  }
}

export interface SectionPlane {
  normal: Vec3
  constant: number
}

export interface SectionBox {
  min: Vec3
  max: Vec3
}

export function planeToBcf(plane: SectionPlane, shift: Vec3 = NO_SHIFT): BcfPlane {
  const n = scale(plane.normal, 1 / length(plane.normal))
  const constant = plane.constant / length(plane.normal)
  return { location: toBcf(scale(n, -constant), shift), direction: toBcf(scale(n, -1)) }
}

export function planeFromBcf(plane: BcfPlane, shift: Vec3 = NO_SHIFT): SectionPlane | null {
  const direction = fromBcf(plane.direction)
  const size = length(direction)
  if (!(size > 1e-9)) return null
  const normal = scale(direction, -1 / size)
  return { normal, constant: -dot(normal, fromBcf(plane.location, shift)) }
}

const AXES: Vec3[] = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
]

/** The six planes of a box, each keeping one side: x ≥ min.x, x ≤ max.x, … */
export function boxToBcf(box: SectionBox, shift: Vec3 = NO_SHIFT): BcfPlane[] {
  return AXES.flatMap((axis, i) => [
    planeToBcf({ normal: axis, constant: -(box.min[i] ?? 0) }, shift),
    planeToBcf({ normal: scale(axis, -1), constant: box.max[i] ?? 0 }, shift),
  ])
}

/** The axis `normal` is (±1 on one axis), as [axis index, sign], or null. */
function axisOf(normal: Vec3): [number, 1 | -1] | null {
  const i = normal.findIndex((v) => Math.abs(Math.abs(v) - 1) < 1e-9)
  if (i < 0 || normal.some((v, j) => j !== i && Math.abs(v) > 1e-9)) return null
  return [i, (normal[i] ?? 0) > 0 ? 1 : -1]
}

/** The box six planes describe (one keeping each side of each axis), or null. */
export function boxFromPlanes(planes: readonly SectionPlane[]): SectionBox | null {
  if (planes.length !== 6) return null
  const min: (number | undefined)[] = [undefined, undefined, undefined]
  const max: (number | undefined)[] = [undefined, undefined, undefined]
  for (const plane of planes) {
    const axis = axisOf(plane.normal)
    if (!axis) return null
    const [i, sign] = axis
    const bound = sign > 0 ? min : max
    if (bound[i] !== undefined) return null
    bound[i] = sign > 0 ? -plane.constant : plane.constant
  }
  const lo = min as number[]
  const hi = max as number[]
  if (lo.some((v, i) => !(v < (hi[i] ?? Number.NaN)))) return null
  return { min: lo as Vec3, max: hi as Vec3 }
}
