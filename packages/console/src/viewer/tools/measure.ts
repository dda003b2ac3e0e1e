// The measure tool: dimensions between points of the model (viewer/state/measure.ts). In a placing
// mode (the panel's Distance or Angle), a click on the model places a point snapped to a vertex, an
// edge or the face under the pointer (measure-snap.ts); the last point completes the dimension,
// which is drawn (measure-draw.ts) with its label (measure-labels.ts) and handed to the screen.
// Dragging still orbits; Esc drops the points placed, a second Esc leaves the mode. With the 3D view
// focused, the keyboard places points too: the arrows move a cursor, Enter places (measure-keys.ts).
import * as THREE from 'three'
import { MAX_QUOTATIONS, type MeasureSettings, POINTS_OF, type Quotation } from '../state/measure.ts'
import type { Vec3 } from '../state/slice.ts'
import { type MeasureControl, registerMeasure } from './measure-control.ts'
import { anchorOf, disposeGroup, drawQuotation, pointsOf, snapMarker } from './measure-draw.ts'
import { labelOf, type ModelUnit } from './measure-format.ts'
import { KeyCursor } from './measure-keys.ts'
import { LabelLayer } from './measure-labels.ts'
import { type Snap, snapAt } from './measure-snap.ts'
import type { ViewerContext, ViewerTool } from './tool.ts'

const PREVIEW = 'preview'
const MARKER_PX = { vertex: 14, edge: 10, face: 6 }
const CLICK_PX = 4
/** How the status line names what a point snapped to. */
const SNAPPED_TO = { vertex: 'a corner', edge: 'an edge', face: 'a face' }

export interface MeasureSnapshot extends MeasureSettings {
  /** The labels as drawn, in the order of `quotations`. */
  labels: string[]
  /** What the pointer snaps to now (tests check the snapping), null when nothing. */
  snap: Snap | null
}

let made = 0

export class MeasureTool implements ViewerTool<MeasureSettings> {
  private readonly group = new THREE.Group()
  private readonly marker = snapMarker()
  private readonly labels: LabelLayer
  private readonly cursor: KeyCursor
  private readonly drawn = new Map<string, { q: Quotation; group: THREE.Group }>()
  private pending: Vec3[] = []
  private preview: THREE.Group | null = null
  private hover: Snap | null = null
  private down: { x: number; y: number } | null = null
  readonly control: MeasureControl

  constructor(private readonly ctx: ViewerContext) {
    this.group.visible = false
    ctx.scene.add(this.group, this.marker)
    this.labels = new LabelLayer(ctx.canvas)
    this.labels.setVisible(false)
    this.cursor = new KeyCursor(ctx.canvas)
    const tool = this
    this.control = {
      mode: null,
      setMode: (mode) => this.setMode(mode),
      placed: () => this.pending.length,
      unit: 'u',
      setUnit(unit: ModelUnit) {
        this.unit = unit
        for (const { q } of tool.drawn.values()) tool.labels.set(q.id, labelOf(q, unit), anchorOf(q))
        ctx.invalidate()
      },
      said: '',
      onAdded: null,
      onProgress: null,
    }
    registerMeasure(ctx.canvas, this.control)
    // Capture: on the canvas itself, before the view's own keys (viewer-keys.ts), which leave alone
    // what a tool took (defaultPrevented): the arrows move the cursor instead of orbiting.
    ctx.canvas.addEventListener('keydown', this.keyDown, { capture: true })
    ctx.controls.addEventListener('change', this.cameraMoved)
  }

  apply(state: MeasureSettings): void {
    this.group.visible = state.enabled
    this.labels.setVisible(state.enabled)
    const keep = new Set(state.quotations.map((q) => q.id))
    for (const [id, { group }] of this.drawn) {
      if (keep.has(id)) continue
      disposeGroup(group)
      this.labels.remove(id)
      this.drawn.delete(id)
    }
    for (const q of state.quotations.slice(0, MAX_QUOTATIONS)) {
      const old = this.drawn.get(q.id)
      if (old && old.q.type === q.type && JSON.stringify(old.q.points) === JSON.stringify(q.points)) continue
      if (old) disposeGroup(old.group)
      this.draw(q)
    }
    this.ctx.invalidate()
  }

  private draw(q: Quotation): void {
    const group = drawQuotation(q)
    group.userData.type = q.type
    group.name = q.id
    this.group.add(group)
    this.drawn.set(q.id, { q, group })
    this.labels.set(q.id, labelOf(q, this.control.unit), anchorOf(q))
  }

  snapshot(): MeasureSnapshot {
    const quotations: Quotation[] = this.group.children.map((g) => ({
      type: g.userData.type as Quotation['type'],
      id: g.name,
      points: pointsOf(g as THREE.Group),
    }))
    return {
      enabled: this.group.visible,
      quotations,
      labels: quotations.map((q) => this.labels.text(q.id)),
      snap: this.hover,
    }
  }

  private setMode(mode: Quotation['type'] | null): void {
    this.control.mode = mode
    this.control.said = ''
    this.cursor.reset()
    this.dropPending()
    this.ctx.canvas.style.cursor = mode ? 'crosshair' : ''
    if (!mode) this.showSnap(null)
    this.control.onProgress?.()
  }

  private dropPending(): void {
    this.pending = []
    if (this.preview) disposeGroup(this.preview)
    this.preview = null
    this.labels.remove(PREVIEW)
    this.ctx.invalidate()
  }

  private keyDown = (event: KeyboardEvent): void => {
    if (!this.control.mode) return
    if (event.key === 'Escape') {
      if (this.pending.length > 0) this.dropPending()
      else this.setMode(null)
      this.control.said = ''
      this.control.onProgress?.()
      return
    }
    const action = this.cursor.key(event)
    if (!action) return
    event.preventDefault()
    const { x, y } = this.cursor.client()
    // A held Enter would place the same point again and again.
    if (action === 'place' && !event.repeat) this.place(x, y)
    else if (action === 'move') this.followCursor()
  }

  /** The snap and the dimension in progress under the keyboard's cursor. */
  private followCursor(): void {
    const { x, y } = this.cursor.client()
    this.showSnap(snapAt(this.ctx, x, y))
    this.showPreview()
  }

  /** The camera moved under the keyboard's cursor: what it snaps to changed. */
  private cameraMoved = (): void => {
    if (this.control.mode && this.cursor.shown) this.followCursor()
  }

  private showSnap(snap: Snap | null): void {
    this.hover = snap
    this.marker.visible = snap !== null
    if (snap) {
      this.marker.position.set(...snap.point)
      ;(this.marker.material as THREE.PointsMaterial).size = MARKER_PX[snap.kind]
    }
    this.ctx.invalidate()
  }

  /** The dimension in progress, drawn to the point under the pointer. */
  private showPreview(): void {
    const mode = this.control.mode
    if (this.preview) disposeGroup(this.preview)
    this.preview = null
    this.labels.remove(PREVIEW)
    if (!mode || this.pending.length === 0) return
    const points = this.hover ? [...this.pending, this.hover.point] : this.pending
    const q = { type: mode, points }
    this.preview = drawQuotation(q)
    this.ctx.scene.add(this.preview)
    if (points.length === POINTS_OF[mode])
      this.labels.set(PREVIEW, labelOf(q, this.control.unit), anchorOf(q), true)
    this.ctx.invalidate()
  }

  pointer(event: PointerEvent, phase: 'down' | 'move' | 'up'): boolean {
    const mode = this.control.mode
    if (!mode) return false
    if (phase === 'down') {
      this.down = event.button === 0 ? { x: event.clientX, y: event.clientY } : null
      // The orbit controls still get it: dragging turns the model while measuring.
      return false
    }
    if (phase === 'move') {
      this.cursor.hide()
      this.showSnap(snapAt(this.ctx, event.clientX, event.clientY))
      this.showPreview()
      return false
    }
    const down = this.down
    this.down = null
    if (down && Math.hypot(event.clientX - down.x, event.clientY - down.y) <= CLICK_PX)
      this.place(event.clientX, event.clientY)
    // Taken either way: a click in the mode places, it never selects.
    return true
  }

  /** A point at a place of the canvas (client coordinates): the pointer's click or the cursor's Enter. */
  private place(x: number, y: number): void {
    const mode = this.control.mode
    const snap = snapAt(this.ctx, x, y)
    this.showSnap(snap)
    if (!mode || this.drawn.size >= MAX_QUOTATIONS) return
    if (!snap) {
      this.control.said = 'Nothing of the model there: no point placed.'
      this.control.onProgress?.()
      return
    }
    this.pending.push(snap.point)
    this.control.said = `Point ${this.pending.length} placed on ${SNAPPED_TO[snap.kind]}.`
    if (this.pending.length === POINTS_OF[mode]) {
      made += 1
      const q: Quotation = { type: mode, id: `q${Date.now().toString(36)}${made}`, points: this.pending }
      this.dropPending()
      this.group.visible = true
      this.labels.setVisible(true)
      this.draw(q)
      this.control.said = `${mode === 'distance' ? 'Distance' : 'Angle'} ${labelOf(q, this.control.unit)} added.`
      this.control.onAdded?.(q)
    }
    this.showPreview()
    this.control.onProgress?.()
  }

  beforeRender(): boolean {
    this.labels.place(this.ctx.camera())
    return false
  }

  dispose(): void {
    this.ctx.canvas.removeEventListener('keydown', this.keyDown, { capture: true })
    this.ctx.controls.removeEventListener('change', this.cameraMoved)
    this.cursor.dispose()
    registerMeasure(this.ctx.canvas, null)
    this.labels.dispose()
    for (const { group } of this.drawn.values()) disposeGroup(group)
    this.dropPending()
    this.marker.geometry.dispose()
  }
}
