// Bounds trees of big geometries built in a web worker (three-mesh-bvh's GenerateMeshBVHWorker),
// so that a 3 M-triangle mesh does not hold the main thread for seconds while its tree is built.
// The worker takes the arrays it is given (they are transferred, not copied), so it gets a copy:
// the geometry stays drawn and pickable the plain way meanwhile. The copy has float positions
// (the converted GLB's are quantized 16-bit integers, interleaved, which the worker cannot read)
// and the same index; the tree is built "indirect" (the triangles are not reordered in the index,
// so the index on the GPU stays as it is) and then bound to the real geometry.
import * as THREE from 'three'
import { MeshBVH } from 'three-mesh-bvh'
import { GenerateMeshBVHWorker } from 'three-mesh-bvh/worker'

/**
 * Geometries from this many triangles get their tree in the worker; smaller ones are built in the
 * main thread's idle slices. Measured in Chromium on this project's 2-core machine: 20,000 triangles
 * take ~5 ms to build in the main thread (an idle slice holds it) and ~8 ms through the worker (a
 * round trip is ~3.5 ms even for 512 triangles, and there is one worker); 100,000 take ~46 ms either
 * way, which in the main thread is a task that input waits behind.
 */
export const WORKER_TRIANGLES = 20_000

/** What a normalized integer attribute's values are divided by (three.js's own denormalize). */
const NORMALIZED_RANGE = new Map<unknown, number>([
  [Int8Array, 127],
  [Uint8Array, 255],
  [Int16Array, 32_767],
  [Uint16Array, 65_535],
  [Int32Array, 2_147_483_647],
  [Uint32Array, 4_294_967_295],
])

/**
 * Float positions, not interleaved nor normalized: what the worker reads (its own BufferAttribute).
 * Read from the array directly: getX() per value costs twice as much on a million vertices.
 */
function floatPositions(attribute: THREE.BufferAttribute | THREE.InterleavedBufferAttribute): Float32Array {
  const interleaved = attribute instanceof THREE.InterleavedBufferAttribute
  const array = interleaved ? attribute.data.array : attribute.array
  const stride = interleaved ? attribute.data.stride : attribute.itemSize
  const offset = interleaved ? attribute.offset : 0
  if (!attribute.normalized && array instanceof Float32Array && stride === 3 && offset === 0)
    return array.slice(0, attribute.count * 3)
  const range = attribute.normalized ? (NORMALIZED_RANGE.get(array.constructor) ?? 1) : 1
  const out = new Float32Array(attribute.count * 3)
  for (let i = 0, k = 0; i < attribute.count; i++) {
    const at = i * stride + offset
    // Clamped as three.js clamps signed values (-32768 reads as -1, like -32767).
    out[k++] = Math.max((array[at] ?? 0) / range, -1)
    out[k++] = Math.max((array[at + 1] ?? 0) / range, -1)
    out[k++] = Math.max((array[at + 2] ?? 0) / range, -1)
  }
  return out
}

/** A copy of what the tree is built from: positions, index and groups (material ranges). */
function workerCopy(geometry: THREE.BufferGeometry): THREE.BufferGeometry {
  const copy = new THREE.BufferGeometry()
  copy.setAttribute(
    'position',
    new THREE.BufferAttribute(floatPositions(geometry.getAttribute('position')), 3),
  )
  if (geometry.index) copy.setIndex(new THREE.BufferAttribute(geometry.index.array.slice(), 1))
  for (const group of geometry.groups) copy.addGroup(group.start, group.count, group.materialIndex)
  copy.setDrawRange(geometry.drawRange.start, geometry.drawRange.count)
  return copy
}

/** One worker, one geometry at a time (GenerateMeshBVHWorker refuses a second job while running). */
export class BvhWorker {
  private worker: GenerateMeshBVHWorker | null = null
  private failed = false

  /**
   * Builds `geometry`'s tree in the worker and sets it as its `boundsTree`. Resolves false when the
   * worker cannot be used (it failed to start once: the caller builds in the main thread instead).
   */
  async build(geometry: THREE.BufferGeometry): Promise<boolean> {
    if (this.failed) return false
    try {
      this.worker ??= new GenerateMeshBVHWorker()
      const worker = this.worker
      const copy = await workerCopy(geometry)
      // Disposed meanwhile: dropped, as a job in the worker is when it is terminated.
      if (worker !== this.worker) return new Promise<boolean>(() => {})
      const tree = await worker.generate(copy, { indirect: true })
      // The tree was built on the copy: the same nodes, bound to the geometry that is drawn.
      const serialized = MeshBVH.serialize(tree, { cloneBuffers: false })
      geometry.boundsTree = MeshBVH.deserialize(serialized, geometry, { setIndex: false })
      return true
    } catch (error) {
      console.warn('Bounds trees: the web worker failed, building in the main thread', error)
      this.failed = true
      this.dispose()
      return false
    }
  }

  dispose(): void {
    this.worker?.dispose()
    this.worker = null
  }
}
