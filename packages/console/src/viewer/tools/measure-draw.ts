// What a dimension looks like: its line (an angle: two legs and an arc at the vertex), a dot at each
// point, and a label in the DOM (readable text for screen readers and axe, in the theme's colours)
// placed over the canvas at the projection of its anchor each frame. Drawn over the model (no depth
// test), as dimensions on a drawing are.
import * as THREE from 'three'
import type { Quotation } from '../state/measure.ts'
import type { Vec3 } from '../state/slice.ts'

// The accent of both themes (styles.css --accent is not readable from WebGL), dark enough on the
// light background and light enough on the dark one.
const LINE = 0xe8590c
const DOT_PX = 7

const lineMaterial = new THREE.LineBasicMaterial({ color: LINE, depthTest: false, transparent: true })
const dotMaterial = new THREE.PointsMaterial({
  color: LINE,
  size: DOT_PX,
  sizeAttenuation: false,
  depthTest: false,
  transparent: true,
})

function v3(p: Vec3): THREE.Vector3 {
  return new THREE.Vector3(...p)
}

/** An arc from leg a to leg b around the vertex, at a quarter of the shorter leg. */
function arc(a: THREE.Vector3, vertex: THREE.Vector3, b: THREE.Vector3): THREE.Vector3[] {
  const u = a.clone().sub(vertex)
  const v = b.clone().sub(vertex)
  const r = Math.min(u.length(), v.length()) / 4
  if (r === 0) return []
  u.normalize()
  v.normalize()
  const out: THREE.Vector3[] = []
  for (let i = 0; i <= 16; i++) {
    const dir = u.clone().lerp(v, i / 16)
    // Opposite legs: the lerp passes through zero; keep the arc where it has a direction.
    if (dir.lengthSq() < 1e-12) continue
    out.push(dir.normalize().multiplyScalar(r).add(vertex))
  }
  return out
}

function segments(q: Pick<Quotation, 'type' | 'points'>): THREE.Vector3[] {
  const [a, b, c] = q.points.map(v3)
  if (!a || !b) return []
  if (q.type === 'distance' || !c) return [a, b]
  const curve = arc(a, b, c)
  const pairs = [a, b, b, c]
  for (let i = 1; i < curve.length; i++) pairs.push(curve[i - 1] as THREE.Vector3, curve[i] as THREE.Vector3)
  return pairs
}

/** Where a label sits: a distance's middle; an angle's vertex, nudged into the angle. */
export function anchorOf(q: Pick<Quotation, 'type' | 'points'>): THREE.Vector3 {
  const [a, b, c] = q.points.map(v3)
  if (!a || !b) return new THREE.Vector3()
  if (q.type === 'distance' || !c) return a.clone().add(b).multiplyScalar(0.5)
  const r = Math.min(a.distanceTo(b), c.distanceTo(b)) / 3
  const bisector = a.clone().sub(b).normalize().add(c.clone().sub(b).normalize())
  if (bisector.lengthSq() < 1e-12) return b.clone()
  return b.clone().add(bisector.normalize().multiplyScalar(r))
}

/** The three.js objects of one dimension (its points, unrounded by float32, in userData.points). */
export function drawQuotation(q: Pick<Quotation, 'type' | 'points'>): THREE.Group {
  const group = new THREE.Group()
  const line = new THREE.LineSegments(new THREE.BufferGeometry().setFromPoints(segments(q)), lineMaterial)
  const dots = new THREE.Points(new THREE.BufferGeometry().setFromPoints(q.points.map(v3)), dotMaterial)
  for (const o of [line, dots]) {
    o.renderOrder = 10
    o.frustumCulled = false
    group.add(o)
  }
  group.userData.points = q.points.map((p) => [...p])
  return group
}

/** The points of a drawn dimension, read back from its group. */
export function pointsOf(group: THREE.Group): Vec3[] {
  return (group.userData.points as Vec3[]).map((p) => [...p] as Vec3)
}

export function disposeGroup(group: THREE.Group): void {
  group.traverse((o) => {
    if (o instanceof THREE.LineSegments || o instanceof THREE.Points) o.geometry.dispose()
  })
  group.removeFromParent()
}

/** The snap marker (its size tells the kind: the tool sets it). */
export function snapMarker(): THREE.Points {
  const material = new THREE.PointsMaterial({
    color: 0x1971c2,
    size: 12,
    sizeAttenuation: false,
    depthTest: false,
    transparent: true,
  })
  const marker = new THREE.Points(new THREE.BufferGeometry().setFromPoints([new THREE.Vector3()]), material)
  marker.renderOrder = 11
  marker.frustumCulled = false
  marker.visible = false
  return marker
}
