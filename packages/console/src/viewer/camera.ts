// The camera's limits and its keyboard moves. Zoom is bounded by the model's bounding sphere (an
// unbounded wheel took the camera 10^14 units away, where the model is gone), and the near and far
// planes follow the camera so that the model is never clipped and depth stays precise.
import * as THREE from 'three'
import type { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'

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

/** Near and far around the model as seen from where the camera is now. */
export function fitClipPlanes(
  camera: THREE.PerspectiveCamera,
  controls: OrbitControls,
  bounds: Bounds,
): void {
  const fromCenter = camera.position.distanceTo(bounds.center)
  // The markers and outlines stand a little out of the model: 1.5 radii leave room for them.
  const far = fromCenter + bounds.radius * 1.5
  const near = Math.max(fromCenter - bounds.radius * 1.5, Math.min(controls.minDistance / 2, far / 2000))
  if (near === camera.near && far === camera.far) return
  camera.near = near
  camera.far = far
  camera.updateProjectionMatrix()
}

const spherical = new THREE.Spherical()
const offset = new THREE.Vector3()

/** Turn around the target: `left` radians of azimuth, `up` radians of elevation (kept off the poles). */
export function orbit(
  camera: THREE.PerspectiveCamera,
  controls: OrbitControls,
  left: number,
  up: number,
): void {
  offset.copy(camera.position).sub(controls.target)
  spherical.setFromVector3(offset)
  spherical.theta -= left
  spherical.phi = THREE.MathUtils.clamp(spherical.phi - up, 0.01, Math.PI - 0.01)
  offset.setFromSpherical(spherical)
  camera.position.copy(controls.target).add(offset)
  controls.update()
}

/** Move toward (factor < 1) or away from (factor > 1) the target, within the zoom limits. */
export function dolly(camera: THREE.PerspectiveCamera, controls: OrbitControls, factor: number): void {
  offset.copy(camera.position).sub(controls.target)
  const length = THREE.MathUtils.clamp(offset.length() * factor, controls.minDistance, controls.maxDistance)
  offset.setLength(length)
  camera.position.copy(controls.target).add(offset)
  controls.update()
}
