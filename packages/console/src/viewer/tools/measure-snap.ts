// Snapping for the measure tool: under the pointer, the corner of the part (vertex), else a point of
// one of its edges, else the point of the face, each within SNAP_PX of the pointer on screen. The
// candidates are the hit triangle's three corners and its feature edges: an edge whose two triangles
// meet at more than FEATURE_DEG (a box's edge, not the diagonal splitting its face in two).
import * as THREE from 'three'
import type { Vec3 } from '../state/slice.ts'
import type { ViewerContext } from './tool.ts'

const SNAP_PX = 10
const FEATURE_DEG = 30
// Above this many triangles a mesh's edges are not classified (time and memory): all snap.
const MAX_CLASSIFIED = 300_000

type SnapKind = 'vertex' | 'edge' | 'face'

export interface Snap {
  kind: SnapKind
  point: Vec3
}

/** Per geometry: the edges (welded vertex ids "i|j") lying inside a flat or smooth surface. */
const smoothEdges = new WeakMap<THREE.BufferGeometry, { weld: Int32Array; inner: Set<string> }>()

function vertexOf(geometry: THREE.BufferGeometry, corner: number): number {
  return geometry.index ? geometry.index.getX(corner) : corner
}

function classify(geometry: THREE.BufferGeometry): { weld: Int32Array; inner: Set<string> } {
  const known = smoothEdges.get(geometry)
  if (known) return known
  const position = geometry.getAttribute('position')
  // Vertices split for their normals or UVs are one corner here.
  const ids = new Map<string, number>()
  const weld = new Int32Array(position.count)
  for (let i = 0; i < position.count; i++) {
    const key = `${position.getX(i)},${position.getY(i)},${position.getZ(i)}`
    const first = ids.get(key)
    if (first === undefined) ids.set(key, i)
    weld[i] = first ?? i
  }
  const firstNormal = new Map<string, THREE.Vector3>()
  const inner = new Set<string>()
  const triangle = new THREE.Triangle()
  const [p, q, r] = [new THREE.Vector3(), new THREE.Vector3(), new THREE.Vector3()]
  const count = (geometry.index?.count ?? position.count) / 3
  const cos = Math.cos((FEATURE_DEG * Math.PI) / 180)
  for (let t = 0; t < count && count <= MAX_CLASSIFIED; t++) {
    const v = [0, 1, 2].map((k) => vertexOf(geometry, t * 3 + k))
    triangle.set(
      p.fromBufferAttribute(position, v[0] ?? 0),
      q.fromBufferAttribute(position, v[1] ?? 0),
      r.fromBufferAttribute(position, v[2] ?? 0),
    )
    const normal = triangle.getNormal(new THREE.Vector3())
    for (const [a, b] of [
      [0, 1],
      [1, 2],
      [2, 0],
    ] as const) {
      const key = edgeKey(weld, v[a] ?? 0, v[b] ?? 0)
      const other = firstNormal.get(key)
      if (!other) firstNormal.set(key, normal)
      else if (other.dot(normal) > cos) inner.add(key)
    }
  }
  const result = { weld, inner }
  smoothEdges.set(geometry, result)
  return result
}

function edgeKey(weld: Int32Array, a: number, b: number): string {
  const i = weld[a] ?? a
  const j = weld[b] ?? b
  return i < j ? `${i}|${j}` : `${j}|${i}`
}

function toScreen(ctx: ViewerContext, point: THREE.Vector3): THREE.Vector2 {
  const rect = ctx.canvas.getBoundingClientRect()
  const ndc = point.clone().project(ctx.camera())
  return new THREE.Vector2(
    rect.left + ((ndc.x + 1) / 2) * rect.width,
    rect.top + ((1 - ndc.y) / 2) * rect.height,
  )
}

function vec(v: THREE.Vector3): Vec3 {
  return [v.x, v.y, v.z]
}

/** The hit triangle's corners in world space (an instance's own placement included). */
function worldCorners(hit: THREE.Intersection, mesh: THREE.Mesh, face: THREE.Face): THREE.Vector3[] {
  const matrix = mesh.matrixWorld.clone()
  if (mesh instanceof THREE.InstancedMesh && hit.instanceId !== undefined) {
    const instance = new THREE.Matrix4()
    mesh.getMatrixAt(hit.instanceId, instance)
    matrix.multiply(instance)
  }
  const position = mesh.geometry.getAttribute('position')
  return [face.a, face.b, face.c].map((i) =>
    new THREE.Vector3().fromBufferAttribute(position, i).applyMatrix4(matrix),
  )
}

/** The snap point under a pointer (client coordinates), or null over the background. */
export function snapAt(ctx: ViewerContext, x: number, y: number): Snap | null {
  const hit = ctx.pickAt(x, y)
  if (!hit) return null
  const face = hit.face
  const mesh = hit.object
  if (!face || !(mesh instanceof THREE.Mesh)) return { kind: 'face', point: vec(hit.point) }
  const pointer = new THREE.Vector2(x, y)
  const corners = worldCorners(hit, mesh, face)
  let best: { d: number; point: THREE.Vector3 } | null = null
  for (const c of corners) {
    const d = toScreen(ctx, c).distanceTo(pointer)
    if (d <= SNAP_PX && (!best || d < best.d)) best = { d, point: c }
  }
  if (best) return { kind: 'vertex', point: vec(best.point) }
  const { weld, inner } = classify(mesh.geometry)
  const ray = ctx.rayAt(x, y).ray
  const ids = [face.a, face.b, face.c]
  for (const [a, b] of [
    [0, 1],
    [1, 2],
    [2, 0],
  ] as const) {
    if (inner.has(edgeKey(weld, ids[a] ?? 0, ids[b] ?? 0))) continue
    const onEdge = new THREE.Vector3()
    ray.distanceSqToSegment(corners[a] as THREE.Vector3, corners[b] as THREE.Vector3, undefined, onEdge)
    const d = toScreen(ctx, onEdge).distanceTo(pointer)
    if (d <= SNAP_PX && (!best || d < best.d)) best = { d, point: onEdge }
  }
  if (best) return { kind: 'edge', point: vec(best.point) }
  return { kind: 'face', point: vec(hit.point) }
}
