// Section planes and the section box (slice `section`, viewer/state/section.ts). The cuts are
// per-material clipping planes on the model's materials (renderer.localClippingEnabled), so that
// markers, outlines, avatars and the gizmo stay whole; the box is six inward planes, and with the
// planes they are one list with clipIntersection false: what is kept is inside the box and on the
// kept side of every plane. Caps: section-caps.ts. Picking skips the cut-away parts (load.ts).
import * as THREE from 'three'
import type { SectionPlane, SectionSettings } from '../state/section.ts'
import { sectionSlice } from '../state/section.ts'
import type { Vec3 } from '../state/slice.ts'
import { type Cut, SectionCaps } from './section-caps.ts'
import { addPlane } from './section-edit.ts'
import { PlaneGizmo } from './section-gizmo.ts'
import { registerSectionTool } from './section-registry.ts'
import type { ViewerContext, ViewerTool } from './tool.ts'

type Listener = (next: SectionSettings) => void

function vec(v: THREE.Vector3): Vec3 {
  return [v.x, v.y, v.z]
}

/** The box's six planes, facing in: +X keeps x ≥ min.x, −X keeps x ≤ max.x, and so on. */
function boxPlanes(min: Vec3, max: Vec3, planes: THREE.Plane[]): void {
  for (let axis = 0; axis < 3; axis++) {
    const n = new THREE.Vector3().setComponent(axis, 1)
    planes[axis * 2]?.set(n, -(min[axis] ?? 0))
    planes[axis * 2 + 1]?.set(n.negate(), max[axis] ?? 0)
  }
}

function materialsOf(mesh: THREE.Mesh): THREE.Material[] {
  return Array.isArray(mesh.material) ? mesh.material : [mesh.material]
}

export class SectionTool implements ViewerTool<SectionSettings> {
  private state: SectionSettings = sectionSlice.defaults()
  private readonly planes = new Map<string, THREE.Plane>()
  private readonly box = Array.from({ length: 6 }, () => new THREE.Plane())
  /** The planes every model material is cut by now (one array, shared by all of them). */
  private active: THREE.Plane[] = []
  private built = ''
  /** Every material this tool has given planes to since the cuts last changed: all are reset. */
  private readonly clipped = new Set<THREE.Material>()
  /** The engine's scene version the cuts and caps were last brought up to (sceneVersion()). */
  private synced = -1
  private readonly caps: SectionCaps
  private readonly gizmo: PlaneGizmo
  private readonly listeners = new Set<Listener>()
  private editing: string | null = null
  private picking = false
  private down: { x: number; y: number } | null = null

  constructor(private readonly context: ViewerContext) {
    context.renderer.localClippingEnabled = true
    this.caps = new SectionCaps(context.renderer)
    context.scene.add(this.caps.group)
    this.gizmo = new PlaneGizmo(context)
    this.gizmo.onMove = () => this.moved()
    registerSectionTool(context.canvas, this)
  }

  modelLoaded(): void {
    this.built = ''
    this.apply(this.state)
  }

  apply(state: SectionSettings): void {
    this.state = state
    for (const p of state.planes) {
      const plane = this.planes.get(p.id) ?? new THREE.Plane()
      plane.normal.set(...p.normal)
      plane.constant = p.constant
      this.planes.set(p.id, plane)
    }
    for (const id of this.planes.keys()) if (!state.planes.some((p) => p.id === id)) this.planes.delete(id)
    if (state.box) boxPlanes(state.box.min, state.box.max, this.box)
    this.rebuild()
    this.showGizmo()
    this.context.invalidate()
  }

  /** The cuts drawn now: the enabled planes, then the box's six, when the master switch is on. */
  private cuts(): Cut[] {
    const s = this.state
    if (!s.enabled) return []
    const cuts: Cut[] = []
    for (const p of s.planes) {
      const plane = this.planes.get(p.id)
      if (p.enabled && plane) cuts.push({ plane, color: p.capColor })
    }
    if (s.box?.enabled) for (const plane of this.box) cuts.push({ plane, color: s.box.capColor })
    return cuts
  }

  /** New materials and caps only when the set of cuts changes (not while a plane moves). */
  private rebuild(): void {
    const cuts = this.cuts()
    const key = JSON.stringify([
      this.context.model()?.uuid,
      cuts.map((c) => c.color),
      this.state.planes.map((p) => [p.id, p.enabled]),
      this.state.box?.enabled,
    ])
    this.caps.group.visible = this.state.enabled
    if (key === this.built) return
    this.built = key
    this.active = cuts.map((c) => c.plane)
    // Materials no longer in the model (a ghost put away, an outline of a part since deselected)
    // still hold the old planes: they would be cut when they come back.
    for (const m of this.clipped) m.clippingPlanes = null
    this.clipped.clear()
    this.clipModel()
    this.synced = this.context.sceneVersion()
    const meshes = this.context.meshesOf(null)
    this.caps.build(cuts, meshes, () => this.context.bounds(), this.context.camera().layers)
  }

  /**
   * Every material under the model cut by the active planes, the selection outlines too (an outline
   * of the whole part over a cut part would show what is cut away); true when one had to be set.
   */
  private clipModel(): boolean {
    if (this.active.length === 0) return false
    const planes = this.active
    let changed = false
    this.context.model()?.traverse((o) => {
      const { material } = o as Partial<THREE.Mesh>
      if (!material) return
      for (const m of Array.isArray(material) ? material : [material]) {
        if (m.clippingPlanes === planes) continue
        m.clippingPlanes = planes
        m.clipIntersection = false
        this.clipped.add(m)
        changed = true
      }
    })
    return changed
  }

  snapshot(): SectionSettings {
    const first = this.context.meshesOf(null)[0]
    const cutBy = new Set(first ? (materialsOf(first)[0]?.clippingPlanes ?? []) : [])
    const colors = this.caps.colors()
    let cap = 0
    const nextColor = (fallback: string) => (this.caps.count > 0 ? (colors[cap++] ?? fallback) : fallback)
    const planes: SectionPlane[] = this.state.planes.map((p) => {
      const plane = this.planes.get(p.id) ?? new THREE.Plane()
      const enabled = cutBy.has(plane) || (p.enabled && !this.state.enabled)
      const capColor = cutBy.has(plane) ? nextColor(p.capColor) : p.capColor
      return { ...p, normal: vec(plane.normal), constant: plane.constant, enabled, capColor }
    })
    const b = this.state.box
    const box = b && {
      ...b,
      min: this.box.filter((_, i) => i % 2 === 0).map((p) => -p.constant) as Vec3,
      max: this.box.filter((_, i) => i % 2 === 1).map((p) => p.constant) as Vec3,
      enabled: b.enabled && (cutBy.has(this.box[0] as THREE.Plane) || !this.state.enabled),
      capColor: this.box[0] && cutBy.has(this.box[0]) ? nextColor(b.capColor) : b.capColor,
    }
    return { enabled: this.caps.group.visible, planes, box }
  }

  beforeRender(): boolean {
    this.gizmo.update()
    const version = this.context.sceneVersion()
    if (this.active.length === 0 || version === this.synced) return false
    // Only when the scene changed (ViewerContext.sceneChanged): a part hidden, a layer switched off,
    // a ghost or an outline added; not every frame while idle.
    this.synced = version
    this.caps.sync()
    this.clipModel()
    return true
  }

  /** Listen to the tool's own changes (a plane dragged, a plane made from a face); the panel does. */
  listen(listener: Listener): () => void {
    this.listeners.add(listener)
    this.showGizmo()
    return () => {
      this.listeners.delete(listener)
      // The panel closed: no more plane from a face, nor its crosshair.
      if (this.picking) this.pickFace(false)
      this.showGizmo()
    }
  }

  /** The plane the arrow is on (the panel's current plane); the arrow shows while the panel is open. */
  edit(id: string | null): void {
    this.editing = id
    this.showGizmo()
  }

  private showGizmo(): void {
    const p = this.state.planes.find((q) => q.id === this.editing)
    const on = this.listeners.size > 0 && this.state.enabled && p?.enabled === true
    this.gizmo.show(on && p ? (this.planes.get(p.id) ?? null) : null)
  }

  private emit(next: SectionSettings): void {
    this.state = next
    for (const l of this.listeners) l(next)
  }

  private moved(): void {
    const id = this.editing
    const plane = id ? this.planes.get(id) : undefined
    if (!plane) return
    this.emit({
      ...this.state,
      planes: this.state.planes.map((p) => (p.id === id ? { ...p, constant: plane.constant } : p)),
    })
    this.context.invalidate()
  }

  /** The next click on the model makes a plane on the face under it (cutting away what is in front). */
  pickFace(on: boolean): void {
    this.picking = on
    this.context.canvas.style.cursor = on ? 'crosshair' : ''
  }

  pickingFace(): boolean {
    return this.picking
  }

  /** The bounds of these nodes' meshes (the whole model for none), grown by 1 % so faces are not on the box. */
  boxAround(ids: string[]): { min: Vec3; max: Vec3 } | null {
    const box = new THREE.Box3()
    const meshes =
      ids.length > 0 ? ids.flatMap((id) => this.context.meshesOf(id)) : this.context.meshesOf(null)
    for (const mesh of meshes) box.expandByObject(mesh)
    if (box.isEmpty()) return null
    box.expandByScalar(box.getSize(new THREE.Vector3()).length() * 0.01)
    return { min: vec(box.min), max: vec(box.max) }
  }

  /** The model's bounding sphere, for the panel's slider ranges and the axis planes. */
  extent(): { centre: Vec3; radius: number } {
    const { center, radius } = this.context.bounds()
    return { centre: vec(center), radius }
  }

  selection(): string[] {
    return this.context.selected()
  }

  pointer(event: PointerEvent, phase: 'down' | 'move' | 'up'): boolean {
    if (phase === 'down') {
      this.down = { x: event.clientX, y: event.clientY }
      return this.gizmo.hovered() || this.gizmo.dragging() || this.picking
    }
    if (phase === 'move') return this.gizmo.dragging()
    const down = this.down
    this.down = null
    if (!this.picking) return this.gizmo.dragging()
    if (down && Math.hypot(event.clientX - down.x, event.clientY - down.y) <= 4) this.faceAt(event)
    return true
  }

  private faceAt(event: PointerEvent): void {
    const hit = this.context.pickAt(event.clientX, event.clientY)
    if (!hit?.face) return
    const normal = hit.face.normal
      .clone()
      .applyNormalMatrix(new THREE.Matrix3().getNormalMatrix(hit.object.matrixWorld))
      .normalize()
      .negate()
    const next = addPlane(this.state, vec(normal), vec(hit.point))
    if (next === this.state) return
    this.pickFace(false)
    this.editing = next.planes.at(-1)?.id ?? null
    this.apply(next)
    this.emit(next)
  }

  /** The plane the arrow is on. */
  edited(): string | null {
    return this.editing
  }

  dispose(): void {
    registerSectionTool(this.context.canvas, null)
    this.gizmo.dispose()
    this.caps.clear()
    this.caps.group.removeFromParent()
  }
}
