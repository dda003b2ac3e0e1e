// The arrow that drags a section plane along its normal: three's TransformControls (translate, on
// the handle's own Z axis, which is turned to the plane's normal). While it is dragged the orbit
// controls are off, so that the drag moves the plane and not the camera.
import * as THREE from 'three'
import { TransformControls } from 'three/examples/jsm/controls/TransformControls.js'
import type { ViewerContext } from './tool.ts'

const Z = new THREE.Vector3(0, 0, 1)

export class PlaneGizmo {
  private readonly controls: TransformControls
  private readonly handle = new THREE.Object3D()
  private plane: THREE.Plane | null = null
  /** The plane was moved by a drag (its constant changed). */
  onMove = (): void => {}

  constructor(private readonly context: ViewerContext) {
    this.controls = new TransformControls(context.camera(), context.canvas)
    this.controls.setSpace('local')
    this.controls.showX = false
    this.controls.showY = false
    this.controls.size = 0.9
    this.handle.name = 'section gizmo handle'
    context.scene.add(this.handle)
    const helper = this.controls.getHelper()
    helper.name = 'section gizmo'
    context.scene.add(helper)
    this.controls.addEventListener('dragging-changed', (e) => {
      context.controls.enabled = !e.value
    })
    this.controls.addEventListener('change', () => context.invalidate())
    this.controls.addEventListener('objectChange', () => {
      if (!this.plane) return
      this.plane.constant = -this.plane.normal.dot(this.handle.position)
      this.onMove()
    })
    this.show(null)
  }

  /** Put the arrow on a plane (at the model's centre projected onto it), or take it away. */
  show(plane: THREE.Plane | null): void {
    this.plane = plane
    if (!plane) {
      this.controls.detach()
      this.controls.enabled = false
      this.context.invalidate()
      return
    }
    if (!this.dragging()) {
      plane.projectPoint(this.context.bounds().center, this.handle.position)
      this.handle.quaternion.setFromUnitVectors(Z, plane.normal)
      this.handle.updateMatrixWorld()
    }
    this.controls.enabled = true
    if (this.controls.object !== this.handle) this.controls.attach(this.handle)
    this.context.invalidate()
  }

  dragging(): boolean {
    return this.controls.dragging
  }

  /** The pointer is over the arrow: a press there is the gizmo's, not a pick. */
  hovered(): boolean {
    return this.controls.enabled && this.controls.object !== undefined && this.controls.axis !== null
  }

  /** The camera may be swapped (perspective, orthographic): the gizmo follows the one drawing. */
  update(): void {
    this.controls.camera = this.context.camera()
  }

  dispose(): void {
    this.controls.detach()
    this.controls.getHelper().removeFromParent()
    this.handle.removeFromParent()
    this.controls.dispose()
    this.context.controls.enabled = true
  }
}
