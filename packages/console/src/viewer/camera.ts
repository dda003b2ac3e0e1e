// The camera's limits and its keyboard moves. Zoom is bounded by the model's bounding sphere (an
// unbounded wheel took the camera 10^14 units away, where the model is gone), and the near and far
// planes follow the camera so that the model is never clipped and depth stays precise.
import * as THREE from 'three'
import type { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import type { CameraState } from './engine.ts'
import { isDrawn } from './load.ts'

/** The camera drawing: the camera rig (camera-rig.ts) swaps perspective and orthographic. */
export type ViewCamera = THREE.PerspectiveCamera | THREE.OrthographicCamera

/** Closest to the target: a thousandth of the model's radius (details of a large site stay reachable). */
const MIN_DISTANCE = 1e-3
/** Farthest from the target: 20 radii, about 6 times the distance that fits the model in view. */
const MAX_DISTANCE = 20

export interface Bounds {
  center: THREE.Vector3
  radius: number
}

export function limitZoom(controls: OrbitControls, bounds: Bounds): void {
  controls.minDistance = bounds.radius * MIN_DISTANCE
  controls.maxDistance = bounds.radius * MAX_DISTANCE
  controls.update()
}

/**
 * Near and far around the model as seen from where the camera is now. A fixed near plane (the
 * view's `zNear`) only pushes the automatic one farther: it cuts away what is in front, never lets
 * depth precision fall below the automatic one's. Orthographic: the automatic near may be behind the
 * camera (negative), so nothing between the camera and the model is ever clipped.
 */
export function fitClipPlanes(
  camera: ViewCamera,
  controls: OrbitControls,
  bounds: Bounds,
  fixedNear: number | null = null,
): void {
  const fromCenter = camera.position.distanceTo(bounds.center)
  // The markers and outlines stand a little out of the model: 1.5 radii leave room for them.
  const front = fromCenter - bounds.radius * 1.5
  const automatic =
    camera instanceof THREE.OrthographicCamera
      ? front
      : Math.max(front, Math.min(controls.minDistance / 2, (fromCenter + bounds.radius * 1.5) / 2000))
  const near = fixedNear === null ? automatic : Math.max(automatic, fixedNear)
  // Past the model's back: nothing is drawn (a near plane beyond the model), the projection stays valid.
  const far = Math.max(fromCenter + bounds.radius * 1.5, near + bounds.radius * 1e-3)
  if (near === camera.near && far === camera.far) return
  camera.near = near
  camera.far = far
  camera.updateProjectionMatrix()
}

const spherical = new THREE.Spherical()
const offset = new THREE.Vector3()
const toYUp = new THREE.Quaternion()
const Y_UP = new THREE.Vector3(0, 1, 0)

/**
 * Turn around the target and the camera's up: `left` radians of azimuth, `up` radians of elevation
 * (kept off the poles).
 */
export function orbit(camera: ViewCamera, controls: OrbitControls, left: number, up: number): void {
  toYUp.setFromUnitVectors(camera.up, Y_UP)
  offset.copy(camera.position).sub(controls.target).applyQuaternion(toYUp)
  spherical.setFromVector3(offset)
  spherical.theta -= left
  spherical.phi = THREE.MathUtils.clamp(spherical.phi - up, 0.01, Math.PI - 0.01)
  offset.setFromSpherical(spherical).applyQuaternion(toYUp.invert())
  camera.position.copy(controls.target).add(offset)
  controls.update()
}

/** Move toward (factor < 1) or away from (factor > 1) the target, within the zoom limits. */
export function dolly(camera: ViewCamera, controls: OrbitControls, factor: number): void {
  offset.copy(camera.position).sub(controls.target)
  const length = THREE.MathUtils.clamp(offset.length() * factor, controls.minDistance, controls.maxDistance)
  offset.setLength(length)
  camera.position.copy(controls.target).add(offset)
  controls.update()
}

const goalPosition = new THREE.Vector3()
const goalTarget = new THREE.Vector3()

/** Move `fraction` of the way to `goal` (snapping when within reach); false when already there. */
export function glideTo(
  camera: ViewCamera,
  controls: OrbitControls,
  goal: CameraState,
  fraction: number,
): boolean {
  goalPosition.set(...goal.position)
  goalTarget.set(...goal.target)
  const away = camera.position.distanceToSquared(goalPosition) + controls.target.distanceToSquared(goalTarget)
  if (away < 1e-12) return false
  if (away < 1e-8) fraction = 1
  camera.position.lerp(goalPosition, fraction)
  controls.target.lerp(goalTarget, fraction)
  controls.update()
  return true
}

export interface Flight {
  from: CameraState
  to: CameraState
  start: number
}

const fromOffset = new THREE.Vector3()
const toOffset = new THREE.Vector3()
const fullTurn = new THREE.Quaternion()
const turn = new THREE.Quaternion()
const NO_TURN = new THREE.Quaternion()

/**
 * One frame of a 600 ms fly-to, eased in and out; true once it has arrived. The camera swings
 * around the target (the direction turns, the distance changes evenly) rather than cutting
 * straight through: from the front view to the back one, a straight line goes through the model.
 */
export function flyStep(camera: ViewCamera, controls: OrbitControls, flight: Flight, now: number) {
  const t = Math.min(1, (now - flight.start) / 600)
  const ease = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2
  const from = flight.from
  const to = flight.to
  fromOffset.set(...from.position).sub(goalTarget.set(...from.target))
  toOffset.set(...to.position).sub(goalTarget.set(...to.target))
  const length = fromOffset.length() + (toOffset.length() - fromOffset.length()) * ease
  fullTurn.setFromUnitVectors(fromOffset.clone().normalize(), toOffset.clone().normalize())
  turn.slerpQuaternions(NO_TURN, fullTurn, ease)
  controls.target.set(...from.target).lerp(goalTarget.set(...to.target), ease)
  fromOffset.applyQuaternion(turn).setLength(length)
  camera.position.copy(controls.target).add(fromOffset)
  if (t >= 1) {
    camera.position.set(...to.position)
    controls.target.set(...to.target)
  }
  controls.update()
  return t >= 1
}

/** What framing needs of the camera: its vertical field of view (degrees) and width / height. */
export interface Lens {
  fov: number
  aspect: number
}

/**
 * Where the camera goes to frame the visible meshes of one object or several, looking along
 * -`direction` (null: nothing to frame). The orthographic camera's height follows its distance
 * (camera-rig.ts), so the same pose frames it the same.
 */
export function framing(
  root: THREE.Object3D | THREE.Object3D[],
  lens: Lens,
  direction: THREE.Vector3,
): CameraState | null {
  const box = new THREE.Box3()
  const roots = Array.isArray(root) ? root : [root]
  for (const r of roots) {
    r.updateWorldMatrix(true, true)
    // Drawn meshes only: a hidden part or one on a switched-off layer is not framed.
    r.traverseVisible((o) => {
      if (o instanceof THREE.Mesh && !o.userData.outline && isDrawn(o)) box.expandByObject(o)
    })
  }
  if (box.isEmpty()) for (const r of roots) box.expandByObject(r)
  if (box.isEmpty()) return null
  const sphere = box.getBoundingSphere(new THREE.Sphere())
  // The narrower of the two fields of view decides (portrait screens: the horizontal one).
  const vertical = THREE.MathUtils.degToRad(lens.fov / 2)
  const horizontal = Math.atan(Math.tan(vertical) * lens.aspect)
  const distance = (sphere.radius / Math.sin(Math.min(vertical, horizontal))) * 1.1
  const position = sphere.center.clone().addScaledVector(direction.clone().normalize(), distance)
  return {
    position: [position.x, position.y, position.z],
    target: [sphere.center.x, sphere.center.y, sphere.center.z],
  }
}
