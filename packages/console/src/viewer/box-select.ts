// Box selection in the 3D view: Shift+drag (or any left drag while the "Box select" mode is on)
// draws a rectangle. Dragged left to right it is a window: the parts whose screen-space bounds lie
// wholly inside are taken. Dragged right to left it is a crossing: the parts whose bounds touch it
// are taken too (the AutoCAD / Revit convention). A part's screen-space bounds are the rectangle
// around the eight projected corners of its world-space bounding box; hidden parts and parts on a
// switched-off layer are never taken (load.ts isDrawn).
import * as THREE from 'three'
import { isDrawn } from './load.ts'
import type { ViewerContext } from './tools/tool.ts'

/** Below this many pixels of drag it is a click (the engine picks), not a box. */
const CLICK_PX = 4

interface ScreenRect {
  left: number
  top: number
  right: number
  bottom: number
}

export interface BoxResult {
  ids: string[]
  /** Right to left: parts touching the box count, not only those inside. */
  crossing: boolean
  /** Ctrl/Cmd held: the parts are added to the selection instead of replacing it. */
  add: boolean
}

/** The scene-tree id a mesh belongs to: its own, else its nearest ancestor's. */
function partOf(mesh: THREE.Object3D): string | null {
  for (let o: THREE.Object3D | null = mesh; o; o = o.parent) {
    if (typeof o.userData.tesseraId === 'string') return o.userData.tesseraId
  }
  return null
}

/** Each drawn part's world-space box (the union of its own meshes). */
function partBoxes(context: ViewerContext): Map<string, THREE.Box3> {
  const boxes = new Map<string, THREE.Box3>()
  const model = context.model()
  if (!model) return boxes
  model.updateWorldMatrix(true, true)
  for (const mesh of context.meshesOf(null)) {
    const id = partOf(mesh)
    if (!id || !isDrawn(mesh, context.camera().layers)) continue
    if (!mesh.geometry.boundingBox) mesh.geometry.computeBoundingBox()
    const box = (mesh.geometry.boundingBox as THREE.Box3).clone().applyMatrix4(mesh.matrixWorld)
    const known = boxes.get(id)
    if (known) known.union(box)
    else boxes.set(id, box)
  }
  return boxes
}

const corner = new THREE.Vector3()

/** A box's bounds on the canvas (CSS pixels), from its corners in front of the camera; null if none is. */
function screenBounds(
  box: THREE.Box3,
  camera: THREE.Camera,
  width: number,
  height: number,
): { rect: ScreenRect; whole: boolean } | null {
  const rect = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity }
  let behind = 0
  for (let i = 0; i < 8; i++) {
    corner.set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z)
    corner.project(camera)
    // Past the far plane or behind the eye (z outside -1..1): not on the screen.
    if (corner.z < -1 || corner.z > 1) {
      behind++
      continue
    }
    const x = ((corner.x + 1) / 2) * width
    const y = ((1 - corner.y) / 2) * height
    rect.left = Math.min(rect.left, x)
    rect.right = Math.max(rect.right, x)
    rect.top = Math.min(rect.top, y)
    rect.bottom = Math.max(rect.bottom, y)
  }
  return behind === 8 ? null : { rect, whole: behind === 0 }
}

/** The parts a box takes: wholly inside (window), or touching it too (crossing). */
function partsInBox(context: ViewerContext, box: ScreenRect, crossing: boolean): string[] {
  const { clientWidth: width, clientHeight: height } = context.canvas
  const camera = context.camera()
  camera.updateMatrixWorld()
  const out: string[] = []
  for (const [id, world] of partBoxes(context)) {
    const bounds = screenBounds(world, camera, width, height)
    if (!bounds) continue
    const r = bounds.rect
    const inside =
      bounds.whole && r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom
    const touching = r.left <= box.right && r.right >= box.left && r.top <= box.bottom && r.bottom >= box.top
    if (crossing ? touching : inside) out.push(id)
  }
  return out
}

/** The drag on the canvas and the rectangle drawn over it (a div in the viewport, styles.css `.select-box`). */
export class BoxSelect {
  /** On: every left drag draws a box (touch and pen users have no Shift); off: Shift+drag does. */
  mode = false
  onSelect = (_result: BoxResult): void => {}
  private start: { x: number; y: number; id: number; add: boolean; controls: boolean } | null = null
  private readonly rect = document.createElement('div')

  constructor(private readonly context: ViewerContext) {
    this.rect.className = 'select-box'
    this.rect.hidden = true
    this.rect.setAttribute('aria-hidden', 'true')
    // Capture: before OrbitControls' own listener, which must not orbit or pan with this drag.
    context.canvas.addEventListener('pointerdown', this.down, { capture: true })
    context.canvas.addEventListener('pointermove', this.move)
    context.canvas.addEventListener('pointerup', this.up, { capture: true })
    context.canvas.addEventListener('pointercancel', this.cancel)
  }

  private local(event: PointerEvent): { x: number; y: number } {
    const r = this.context.canvas.getBoundingClientRect()
    return { x: event.clientX - r.left, y: event.clientY - r.top }
  }

  private down = (event: PointerEvent): void => {
    if (event.button !== 0 || !(this.mode || event.shiftKey) || !this.context.model()) return
    const { x, y } = this.local(event)
    const controls = this.context.controls.enabled
    this.start = { x, y, id: event.pointerId, add: event.ctrlKey || event.metaKey, controls }
    this.context.controls.enabled = false
    this.context.canvas.setPointerCapture?.(event.pointerId)
    this.context.canvas.parentElement?.append(this.rect)
  }

  private move = (event: PointerEvent): void => {
    const start = this.start
    if (!start || event.pointerId !== start.id) return
    const { x, y } = this.local(event)
    if (Math.hypot(x - start.x, y - start.y) <= CLICK_PX) return
    const s = this.rect.style
    s.left = `${Math.min(x, start.x)}px`
    s.top = `${Math.min(y, start.y)}px`
    s.width = `${Math.abs(x - start.x)}px`
    s.height = `${Math.abs(y - start.y)}px`
    this.rect.dataset.crossing = String(x < start.x)
    this.rect.hidden = false
  }

  private up = (event: PointerEvent): void => {
    const start = this.start
    if (!start || event.pointerId !== start.id) return
    this.cancel()
    const { x, y } = this.local(event)
    // A short drag is a click: the engine's own pointerup picks (Shift+click adds the part).
    if (Math.hypot(x - start.x, y - start.y) <= CLICK_PX) return
    const box = {
      left: Math.min(x, start.x),
      right: Math.max(x, start.x),
      top: Math.min(y, start.y),
      bottom: Math.max(y, start.y),
    }
    const crossing = x < start.x
    this.onSelect({ ids: partsInBox(this.context, box, crossing), crossing, add: start.add })
  }

  private cancel = (): void => {
    // The controls as they were (the camera may be locked by the view: disableCamera).
    if (this.start) this.context.controls.enabled = this.start.controls
    this.start = null
    this.rect.hidden = true
  }

  dispose(): void {
    this.cancel()
    this.rect.remove()
    const canvas = this.context.canvas
    canvas.removeEventListener('pointerdown', this.down, { capture: true })
    canvas.removeEventListener('pointermove', this.move)
    canvas.removeEventListener('pointerup', this.up, { capture: true })
    canvas.removeEventListener('pointercancel', this.cancel)
  }
}
