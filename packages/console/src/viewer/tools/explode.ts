// The exploded view: the parts of one tree level (levels.ts: the first that branches) move away from
// the model's centre, each along the line from the centre to its own centre, by the distance × the
// model's radius. Original positions are kept, so the parts return exactly where they were.
import * as THREE from 'three'
import type { Bounds } from '../camera.ts'
import type { ExplodeSettings } from '../state/explode.ts'
import { firstBranchingLevel } from './levels.ts'
import type { ViewerContext, ViewerTool } from './tool.ts'

interface Part {
  object: THREE.Object3D
  /** The local position before any explosion. */
  home: THREE.Vector3
  /** Unit direction from the model's centre to the part's centre, in world space (zero: stays). */
  direction: THREE.Vector3
}

export class ExplodeTool implements ViewerTool<ExplodeSettings> {
  private state: ExplodeSettings = { enabled: false, distance: 0 }
  private parts: Part[] = []
  /** The model's bounds as loaded (the engine's bounds grow while exploded). */
  private home: Bounds | null = null

  constructor(private readonly context: ViewerContext) {}

  modelLoaded(): void {
    const bounds = this.context.bounds()
    this.home = { center: bounds.center.clone(), radius: bounds.radius }
    this.parts = firstBranchingLevel(this.context.model()).map((object) => {
      const centre = new THREE.Box3().setFromObject(object).getCenter(new THREE.Vector3())
      const direction = centre.sub(bounds.center)
      return {
        object,
        home: object.position.clone(),
        direction: direction.lengthSq() > 1e-12 ? direction.normalize() : direction,
      }
    })
    this.place()
  }

  apply(state: ExplodeSettings): void {
    this.state = { ...state }
    this.place()
  }

  private place(): void {
    if (!this.home) return
    const reach = this.state.enabled ? this.state.distance * this.home.radius : 0
    for (const part of this.parts) {
      part.object.position.copy(part.home)
      const parent = part.object.parent
      if (reach > 0 && parent) {
        // The world offset in the parent's frame (parents may be rotated or scaled).
        parent.updateWorldMatrix(true, false)
        const origin = parent.worldToLocal(new THREE.Vector3())
        const tip = parent.worldToLocal(part.direction.clone().multiplyScalar(reach))
        part.object.position.add(tip.sub(origin))
      }
      part.object.updateMatrixWorld(true)
    }
    // The parts now reach farther: grow the engine's bounds so that the clip planes keep them.
    const bounds = this.context.bounds()
    bounds.radius = this.home.radius + reach
    this.context.controls.dispatchEvent({ type: 'change' })
    this.context.partsMoved()
  }

  /** The distance read back from where a moved part is now (the stored one when none moves). */
  snapshot(): ExplodeSettings {
    const moved = this.parts.find((p) => p.direction.lengthSq() > 0)
    if (!this.state.enabled || !moved || !this.home) return { ...this.state }
    const world = (v: THREE.Vector3) =>
      moved.object.parent ? moved.object.parent.localToWorld(v.clone()) : v.clone()
    const offset = world(moved.object.position).distanceTo(world(moved.home))
    return { enabled: true, distance: Math.round((offset / this.home.radius) * 1e6) / 1e6 }
  }

  dispose(): void {
    this.state = { enabled: false, distance: 0 }
    this.place()
    this.parts = []
  }
}
