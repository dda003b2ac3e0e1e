// The camera rig: a perspective and an orthographic camera sharing one pose and one OrbitControls
// that drives whichever draws; the model's up vector, the field-of-view presets and a fixed near
// plane (viewer/state/camera.ts). The orthographic camera's height follows its distance to the
// target, so one pose (`cameraPosition`) frames both alike and switching keeps the framing.
import * as THREE from 'three'
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js'
import { type Flight, flyStep, glideTo, type Lens, type ViewCamera } from './camera.ts'
import {
  type CameraPose,
  type CameraSettings,
  FOV_PRESETS,
  type Projection,
  UP_VECTORS,
  type UpVector,
} from './state/camera.ts'
import type { Vec3 } from './state/slice.ts'

export type StandardView = 'front' | 'back' | 'left' | 'right' | 'top' | 'bottom' | 'iso'

/** Where each standard view looks from in a Y-up model (glTF's: +Z is the front), before turning to the up vector. */
const FROM: Record<StandardView, Vec3> = {
  front: [0, 0, 1],
  back: [0, 0, -1],
  left: [-1, 0, 0],
  right: [1, 0, 0],
  // A hair off the pole: looking exactly along the up vector leaves the camera's roll undefined.
  top: [0, 1, 1e-4],
  bottom: [0, -1, 1e-4],
  iso: [1, 0.8, 1.2],
}

const UP: Record<UpVector, Vec3> = {
  'X+': [1, 0, 0],
  'X-': [-1, 0, 0],
  'Y+': [0, 1, 0],
  'Y-': [0, -1, 0],
  'Z+': [0, 0, 1],
  'Z-': [0, 0, -1],
}

const Y_UP = new THREE.Vector3(0, 1, 0)

/** OrbitControls turns around `object.up` through a rotation it works out once, when it is made. */
interface OrbitUpFrame {
  _quat: THREE.Quaternion
  _quatInverse: THREE.Quaternion
}

function vec(v: THREE.Vector3): Vec3 {
  return [v.x, v.y, v.z]
}

/**
 * The viewer's lights: a sky-and-ground fill in the scene, and a key light returned for the rig to
 * carry with the camera (a headlight: the side facing the viewer is always lit).
 */
export function studioLights(scene: THREE.Scene): THREE.DirectionalLight {
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8f99, 2.2))
  const sun = new THREE.DirectionalLight(0xffffff, 1.6)
  sun.position.set(3, 5, 4)
  return sun
}

export class CameraRig {
  readonly perspective = new THREE.PerspectiveCamera(FOV_PRESETS[0], 1, 0.01, 1000)
  readonly orthographic = new THREE.OrthographicCamera(-1, 1, 1, -1, 0.01, 1000)
  readonly controls: OrbitControls
  /** The camera drawing now. */
  camera: ViewCamera = this.perspective
  /** A fixed near plane (model units) or null: automatic (camera.ts fitClipPlanes). */
  near: number | null = null
  /** Restoring a view leaves the camera as it is (the screen honours it: screens/viewer.tsx). */
  disabled = false
  private flight: Flight | null = null
  /** The camera being followed (live sessions): mine glides to it each frame. */
  private chase: CameraPose | null = null

  /** `light` rides with the camera (a headlight): it moves to whichever camera draws. */
  constructor(
    canvas: HTMLCanvasElement,
    private readonly scene: THREE.Scene,
    private readonly light: THREE.Object3D,
  ) {
    this.perspective.add(light)
    scene.add(this.perspective)
    this.controls = new OrbitControls(this.perspective, canvas)
    this.controls.enableDamping = false
  }

  lens(): Lens {
    return { fov: this.perspective.fov, aspect: this.perspective.aspect }
  }

  setAspect(aspect: number): void {
    this.perspective.aspect = aspect
    this.perspective.updateProjectionMatrix()
    this.fitOrthographic()
  }

  /**
   * The orthographic camera shows at the target what the perspective one shows from the same place
   * (height 2 · distance · tan(fov / 2)); OrbitControls' wheel zoom is turned into distance, so the
   * pose alone holds the framing. Called at every controls change.
   */
  fitOrthographic(): void {
    const ortho = this.orthographic
    if (this.camera !== ortho) return
    const { target, minDistance, maxDistance } = this.controls
    const offset = ortho.position.clone().sub(target)
    if (ortho.zoom !== 1) {
      const length = THREE.MathUtils.clamp(offset.length() / ortho.zoom, minDistance, maxDistance)
      ortho.position.copy(target).addScaledVector(offset.normalize(), length)
      ortho.zoom = 1
    }
    const half =
      ortho.position.distanceTo(target) * Math.tan(THREE.MathUtils.degToRad(this.perspective.fov / 2))
    ortho.top = half
    ortho.bottom = -half
    ortho.right = half * this.perspective.aspect
    ortho.left = -ortho.right
    ortho.updateProjectionMatrix()
  }

  /** Set everything but the pose (the engine moves the camera: flights, follows). */
  apply(settings: CameraSettings): void {
    this.setUp(settings.up)
    this.perspective.fov = FOV_PRESETS[settings.fovIndex] ?? FOV_PRESETS[0]
    this.perspective.updateProjectionMatrix()
    this.setProjection(settings.projection)
    this.fitOrthographic()
    this.near = settings.near
    this.disabled = settings.disabled
  }

  private setProjection(projection: Projection): void {
    const next = projection === 'orthographic' ? this.orthographic : this.perspective
    if (next === this.camera) return
    next.position.copy(this.camera.position)
    next.quaternion.copy(this.camera.quaternion)
    next.add(this.light)
    this.scene.remove(this.camera)
    this.scene.add(next)
    this.camera = next
    this.controls.object = next
    this.controls.update()
  }

  private setUp(up: UpVector): void {
    const vector = new THREE.Vector3(...UP[up])
    if (vector.equals(this.perspective.up)) return
    this.perspective.up.copy(vector)
    this.orthographic.up.copy(vector)
    const frame = this.controls as unknown as OrbitUpFrame
    frame._quat.setFromUnitVectors(vector, Y_UP)
    frame._quatInverse.copy(frame._quat).invert()
    this.controls.update()
  }

  /** The direction from the target to the camera for a standard view, turned to the model's up. */
  from(view: StandardView): THREE.Vector3 {
    const turn = new THREE.Quaternion().setFromUnitVectors(Y_UP, this.perspective.up)
    return new THREE.Vector3(...FROM[view]).normalize().applyQuaternion(turn)
  }

  pose(): CameraPose {
    return { position: vec(this.camera.position), target: vec(this.controls.target) }
  }

  /** Go to a pose; animated, fly there in 600 ms. */
  moveTo(pose: CameraPose, animate: boolean): void {
    if (animate) {
      this.flight = { from: this.pose(), to: pose, start: performance.now() }
      return
    }
    this.flight = null
    this.camera.position.set(...pose.position)
    this.controls.target.set(...pose.target)
    this.controls.update()
  }

  follow(pose: CameraPose | null): void {
    this.flight = null
    this.chase = pose
  }

  /** The user took the camera: a flight or a follow ends. */
  stop(): void {
    this.flight = null
    this.chase = null
  }

  /** One frame of a flight or a follow; true when the camera moved. */
  step(now: number): boolean {
    let moved = false
    if (this.flight) {
      if (flyStep(this.camera, this.controls, this.flight, now)) this.flight = null
      moved = true
    }
    // A third of the way to the followed camera each frame: smooth, and there within ~200 ms.
    if (this.chase && glideTo(this.camera, this.controls, this.chase, 0.35)) moved = true
    return moved
  }

  /**
   * The view cube's CSS transform (matrix3d, column-major): the model's axes as the camera sees
   * them, the Y-up cube turned to the model's up. CSS's y points down, three's up: flipped both sides.
   */
  cubeMatrix(): number[] {
    const flip = new THREE.Matrix4().makeScale(1, -1, 1)
    const view = new THREE.Matrix4().makeRotationFromQuaternion(this.camera.quaternion.clone().invert())
    const up = new THREE.Quaternion().setFromUnitVectors(Y_UP, this.perspective.up)
    return flip
      .multiply(view)
      .multiply(new THREE.Matrix4().makeRotationFromQuaternion(up))
      .multiply(new THREE.Matrix4().makeScale(1, -1, 1)).elements
  }

  /** The camera's settings read back from the three.js cameras. */
  settings(): CameraSettings {
    const fov = FOV_PRESETS.indexOf(this.perspective.fov as (typeof FOV_PRESETS)[number])
    const up = this.camera.up
    return {
      pose: this.pose(),
      projection: this.camera instanceof THREE.OrthographicCamera ? 'orthographic' : 'perspective',
      fovIndex: Math.max(fov, 0),
      up: UP_VECTORS.find((name) => new THREE.Vector3(...UP[name]).distanceTo(up) < 1e-9) ?? 'Y+',
      near: this.near,
      disabled: this.disabled,
    }
  }
}
