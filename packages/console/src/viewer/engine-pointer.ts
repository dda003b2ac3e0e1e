// The engine's pointer on the canvas: a tool may take an event first (a plane dragged, a point
// placed); otherwise a click (not a drag of the orbit controls) picks what is under the pointer,
// an annotation marker before the part behind it.
import type * as THREE from 'three'
import type { MarkerLayer } from './markers.ts'
import { nodeIdOf } from './picking.ts'
import type { Vec3 } from './state/slice.ts'
import type { ViewerTool } from './tools/tool.ts'

export interface Pick {
  nodeId: string | null
  point: Vec3
}

export interface PointerDeps {
  tools(): ViewerTool<unknown>[]
  rayAt(clientX: number, clientY: number): THREE.Raycaster
  hitOf(ray: THREE.Raycaster): THREE.Intersection | undefined
  markers: MarkerLayer
  onPick(pick: Pick, marker: string | null): void
}

const vec = (v: THREE.Vector3): Vec3 => [v.x, v.y, v.z]

export class EnginePointer {
  private down: { x: number; y: number } | null = null

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly deps: PointerDeps,
  ) {
    canvas.addEventListener('pointerdown', this.pointerDown)
    canvas.addEventListener('pointermove', this.pointerMove)
    canvas.addEventListener('pointerup', this.pointerUp)
  }

  /** The first tool that takes a pointer event keeps it from the core (and the others). */
  private toolTook(event: PointerEvent, phase: 'down' | 'move' | 'up'): boolean {
    return this.deps.tools().some((tool) => tool.pointer?.(event, phase) === true)
  }

  private pointerDown = (event: PointerEvent): void => {
    this.down = this.toolTook(event, 'down') ? null : { x: event.clientX, y: event.clientY }
  }

  private pointerMove = (event: PointerEvent): void => {
    this.toolTook(event, 'move')
  }

  private pointerUp = (event: PointerEvent): void => {
    const down = this.down
    this.down = null
    if (this.toolTook(event, 'up')) return
    if (!down || Math.hypot(event.clientX - down.x, event.clientY - down.y) > 4) return
    const ray = this.deps.rayAt(event.clientX, event.clientY)
    const hit = this.deps.hitOf(ray)
    const marker = this.deps.markers.pick(ray, hit?.distance ?? Number.POSITIVE_INFINITY)
    if (marker) {
      this.deps.onPick({ nodeId: null, point: vec(marker.point) }, marker.id)
      return
    }
    if (!hit) {
      this.deps.onPick({ nodeId: null, point: [0, 0, 0] }, null)
      return
    }
    this.deps.onPick({ nodeId: nodeIdOf(hit.object), point: vec(hit.point) }, null)
  }

  dispose(): void {
    this.canvas.removeEventListener('pointerdown', this.pointerDown)
    this.canvas.removeEventListener('pointermove', this.pointerMove)
    this.canvas.removeEventListener('pointerup', this.pointerUp)
  }
}
