// Picking on big models, with bounding volume hierarchies (three-mesh-bvh) built after the first
// frame, so that the model draws first: in idle time, or in a web worker for big geometries
// (bvh-worker.ts), so that one 3 M-triangle mesh does not hold the main thread for seconds. Two
// levels: one tree over the parts' world boxes (ObjectBVH: a pick visits the few parts along the
// ray, nearest first, not 50,000), and one tree per big geometry (a pick tests the few triangles
// along the ray). Until they are built, a pick walks the drawn meshes, rejects most on their world
// bounding sphere, and raycasts the rest the plain three.js way (acceleratedRaycast falls back by
// itself). Hidden parts, parts on a switched-off layer and hits on the cut-away side of a section
// are never picked.
import * as THREE from 'three'
import { acceleratedRaycast, INTERSECTED, MeshBVH, NOT_INTERSECTED, ObjectBVH } from 'three-mesh-bvh'
import { BvhWorker, WORKER_TRIANGLES } from './bvh-worker.ts'
import { clippedAway, isClipped, isDrawn, meshesUnder } from './load.ts'

const DEFAULT_LAYERS = new THREE.Layers()

/**
 * Geometries under this many triangles get no tree: a 12-triangle box is raycast faster plainly
 * (the bench's 50,000 small parts picked ~20 % slower with a tree each).
 */
const MIN_TRIANGLES = 512

/** Models with fewer parts are walked: the tree over the parts pays from a few hundred on. */
const MIN_PARTS = 256

function triangles(geometry: THREE.BufferGeometry): number {
  return (geometry.index?.count ?? geometry.getAttribute('position')?.count ?? 0) / 3
}

/** Idle slices stop building trees with this much of the slice left, to keep input responsive. */
const SLICE_RESERVE_MS = 2

/**
 * The meshes of `root` that are drawn (every ancestor visible, the mesh on one of the camera's
 * layers: the layers tool moves a switched-off part out of layer 0), outlines and helpers excluded.
 */
function shownMeshes(root: THREE.Object3D, layers: THREE.Layers): THREE.Mesh[] {
  const out: THREE.Mesh[] = []
  const walk = (object: THREE.Object3D): void => {
    if (!object.visible) return
    if (object instanceof THREE.Mesh && !object.userData.outline && object.layers.test(layers))
      out.push(object)
    for (const child of object.children) walk(child)
  }
  walk(root)
  return out
}

const sphere = new THREE.Sphere()

/**
 * The nearest hit on a drawn part, not on the cut-away side of a section. `accelerated` false is
 * the plain three.js raycast (every hit of every mesh, then sorted): the benchmark's baseline.
 */
export function firstShownHit(
  ray: THREE.Raycaster,
  root: THREE.Object3D,
  accelerated = true,
): THREE.Intersection | undefined {
  const layers = ray.camera?.layers ?? DEFAULT_LAYERS
  if (!accelerated) {
    return ray.intersectObjects(shownMeshes(root, layers), false).find((h) => !clippedAway(h))
  }
  let best: THREE.Intersection | undefined
  for (const mesh of shownMeshes(root, layers)) {
    const geometry = mesh.geometry
    if (!geometry.boundingSphere) geometry.computeBoundingSphere()
    if (!geometry.boundingSphere) continue
    sphere.copy(geometry.boundingSphere).applyMatrix4(mesh.matrixWorld)
    if (!ray.ray.intersectsSphere(sphere)) continue
    best = nearer(best, nearestHit(mesh, ray))
  }
  return best
}

function nearer(a: THREE.Intersection | undefined, b: THREE.Intersection | undefined) {
  return !a || (b && b.distance < a.distance) ? b : a
}

/** A mesh's nearest hit that is drawn (a cut mesh is asked for every hit, the cut-away ones dropped). */
function nearestHit(mesh: THREE.Mesh, ray: THREE.Raycaster): THREE.Intersection | undefined {
  const clipped = isClipped(mesh)
  ray.firstHitOnly = !clipped
  const own: THREE.Intersection[] = []
  acceleratedRaycast.call(mesh, ray, own)
  ray.firstHitOnly = false
  let best: THREE.Intersection | undefined
  for (const hit of own) if (!clipped || !clippedAway(hit)) best = nearer(best, hit)
  return best
}

const point = new THREE.Vector3()

/** The nearest drawn hit through the tree over the parts: boxes nearest first, farther ones skipped. */
function hitThroughTree(tree: ObjectBVH, ray: THREE.Raycaster): THREE.Intersection | undefined {
  const layers = ray.camera?.layers ?? DEFAULT_LAYERS
  const origin = ray.ray.origin
  let best: THREE.Intersection | undefined
  tree.shapecast({
    boundsTraverseOrder: (box) => box.distanceToPoint(origin),
    intersectsBounds: (box) => {
      if (!ray.ray.intersectBox(box, point)) return NOT_INTERSECTED
      const distance = box.containsPoint(origin) ? 0 : origin.distanceTo(point)
      return distance < (best?.distance ?? Number.POSITIVE_INFINITY) ? INTERSECTED : NOT_INTERSECTED
    },
    intersectsObject: (object) => {
      if (!(object instanceof THREE.Mesh) || object.userData.outline) return false
      if (isDrawn(object, layers)) best = nearer(best, nearestHit(object, ray))
      return false
    },
  })
  return best
}

/**
 * Bounds trees built after the first frame (shared geometries once, small ones never): big
 * geometries in a web worker (bvh-worker.ts), one after another; the others in the main thread's
 * idle time. The build is marked for tests and the bench: a `tessera:trees-start` mark at its first
 * idle slice, a `tessera:trees` measure from there to the last tree.
 */
export class PickIndex {
  private pending: THREE.BufferGeometry[] = []
  private forWorker: THREE.BufferGeometry[] = []
  private readonly worker = new BvhWorker()
  private workerRunning = false
  private handle = 0
  private built = 0
  private builtInWorker = 0
  private started = false
  private readonly done: (() => void)[] = []
  /** The model's parts, to be put in `parts` (a tree over their world boxes) at the first idle slice. */
  private partsToIndex: THREE.Mesh[] = []
  private parts: ObjectBVH | null = null
  private moved = false

  /** Queue the parts and every geometry of `root`; the build starts at the browser's next idle period. */
  build(root: THREE.Object3D): void {
    const seen = new Set<THREE.BufferGeometry>()
    const meshes = meshesUnder(root)
    for (const mesh of meshes)
      if (!mesh.geometry.boundsTree && triangles(mesh.geometry) >= MIN_TRIANGLES) seen.add(mesh.geometry)
    this.partsToIndex = meshes.length >= MIN_PARTS ? meshes : []
    this.pending = [...seen].filter((g) => triangles(g) < WORKER_TRIANGLES)
    this.forWorker = [...seen].filter((g) => triangles(g) >= WORKER_TRIANGLES)
    this.started = false
    this.schedule()
  }

  /** The nearest drawn hit under `root`: through the tree over the parts once it is built. */
  hit(ray: THREE.Raycaster, root: THREE.Object3D): THREE.Intersection | undefined {
    if (!this.parts) return firstShownHit(ray, root)
    if (this.moved) this.parts.refit()
    this.moved = false
    return hitThroughTree(this.parts, ray)
  }

  /** Parts moved (explode): the tree over them is refit before the next pick. */
  partsMoved(): void {
    this.moved = true
  }

  private finished(): boolean {
    const queued = this.pending.length + this.forWorker.length + this.partsToIndex.length
    return queued === 0 && !this.workerRunning
  }

  private schedule(): void {
    if (this.finished()) {
      if (this.started) performance.measure('tessera:trees', 'tessera:trees-start')
      this.started = false
      for (const resolve of this.done.splice(0)) resolve()
      return
    }
    const idleWork = this.pending.length + this.partsToIndex.length
    if (idleWork > 0 || (this.forWorker.length > 0 && !this.workerRunning))
      this.handle = requestIdleCallback((deadline) => this.slice(deadline), { timeout: 500 })
  }

  private slice(deadline: IdleDeadline): void {
    if (!this.started) performance.mark('tessera:trees-start')
    this.started = true
    if (this.partsToIndex.length > 0) {
      // The parts first, in one go (50,000 boxes: a few hundred ms): every pick needs this tree.
      this.parts = new ObjectBVH(this.partsToIndex)
      this.partsToIndex = []
      this.moved = false
      this.schedule()
      return
    }
    if (this.forWorker.length > 0 && !this.workerRunning) void this.runWorker()
    // The small ones here, at least one per slice (each is a few ms at most).
    for (let geometry = this.pending.pop(); geometry; geometry = this.pending.pop()) {
      geometry.boundsTree = new MeshBVH(geometry)
      this.built++
      if (deadline.timeRemaining() <= SLICE_RESERVE_MS) break
    }
    this.schedule()
  }

  /** The big geometries through the worker, one at a time; any it cannot take joins the idle queue. */
  private async runWorker(): Promise<void> {
    this.workerRunning = true
    for (let geometry = this.forWorker.pop(); geometry; geometry = this.forWorker.pop()) {
      if (await this.worker.build(geometry)) {
        this.built++
        this.builtInWorker++
      } else this.pending.push(geometry)
    }
    this.workerRunning = false
    this.schedule()
  }

  /** How far the build is: geometries with a tree (of them built in the worker), and still queued. */
  progress(): { built: number; pending: number; parts: boolean; inWorker: number } {
    const pending = this.pending.length + this.forWorker.length + (this.workerRunning ? 1 : 0)
    return { built: this.built, pending, parts: this.parts !== null, inWorker: this.builtInWorker }
  }

  /** Resolves once every queued geometry has its tree (tests and the benchmark wait on it). */
  whenBuilt(): Promise<void> {
    if (this.finished()) return Promise.resolve()
    return new Promise((resolve) => this.done.push(resolve))
  }

  dispose(): void {
    cancelIdleCallback(this.handle)
    // A job in the worker is dropped with it (its promise never settles).
    this.worker.dispose()
    this.workerRunning = false
    this.pending = []
    this.forWorker = []
    this.partsToIndex = []
    this.parts = null
  }
}

/** The scene-tree id of a hit object: its own, or its nearest ancestor's. */
export function nodeIdOf(hit: THREE.Object3D): string | null {
  for (let o: THREE.Object3D | null = hit; o; o = o.parent)
    if (typeof o.userData.tesseraId === 'string') return o.userData.tesseraId
  return null
}
