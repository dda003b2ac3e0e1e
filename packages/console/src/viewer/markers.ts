// Annotation markers. Each is drawn twice: solid with the depth test (the part of it in front of
// the model) and faint without it (so a marker behind the model still shows where it is, without
// pretending to be in front). Picking ignores a marker the model hides.
import * as THREE from 'three'
import type { Vec3 } from './engine.ts'

export interface Marker {
  id: string
  point: Vec3
  color: string
}

const FAINT_OPACITY = 0.3

export class MarkerLayer {
  readonly group = new THREE.Group()
  private readonly solid = new THREE.Group()
  private readonly faint = new THREE.Group()

  constructor() {
    this.group.add(this.faint, this.solid)
  }

  /** What the markers were last set to ('' for none): setting the same again draws no new frame. */
  private drawn = ''

  /** Whether anything changed (the screen sets them again on every phase of the model's load). */
  set(markers: Marker[], active: string | null, size: number): boolean {
    const wanted = markers.length === 0 ? '' : JSON.stringify([markers, active, size])
    if (wanted === this.drawn) return false
    this.clear()
    this.drawn = wanted
    for (const marker of markers) {
      const geometry = new THREE.SphereGeometry(marker.id === active ? size * 1.6 : size, 16, 12)
      const color = new THREE.Color(marker.color)
      const faint = new THREE.Mesh(
        geometry,
        new THREE.MeshBasicMaterial({ color, transparent: true, opacity: FAINT_OPACITY, depthTest: false }),
      )
      const solid = new THREE.Mesh(geometry, new THREE.MeshBasicMaterial({ color }))
      faint.renderOrder = 10
      solid.renderOrder = 11
      for (const ball of [faint, solid]) {
        ball.position.set(...marker.point)
        ball.userData.markerId = marker.id
      }
      this.faint.add(faint)
      this.solid.add(solid)
    }
    return true
  }

  /** The marker hit by the ray, unless the model (its nearest hit at `modelDistance`) hides it. */
  pick(ray: THREE.Raycaster, modelDistance: number): { id: string; point: THREE.Vector3 } | null {
    const hit = ray.intersectObjects(this.solid.children, false)[0]
    if (!hit || hit.distance > modelDistance) return null
    return { id: hit.object.userData.markerId as string, point: hit.point }
  }

  clear(): void {
    this.drawn = ''
    for (const group of [this.faint, this.solid]) {
      for (const o of group.children) {
        const mesh = o as THREE.Mesh
        mesh.geometry.dispose()
        ;(mesh.material as THREE.Material).dispose()
      }
      group.clear()
    }
  }
}
