// Runs occt-import-js (OpenCascade compiled to wasm) in a worker thread. Its readers are synchronous
// and some damaged inputs never return (a truncated BREP loops forever in BRepTools::Read) or throw
// wasm exceptions; a worker can be terminated on a deadline, and is then replaced by a fresh one.
// The wasm module is initialized once per worker, so once per process while nothing goes wrong.
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

export type OcctFormat = 'step' | 'iges' | 'brep'

/** occt-import-js's triangulation parameters (see its README). */
export interface OcctParams {
  linearUnit: 'millimeter' | 'centimeter' | 'meter' | 'inch' | 'foot'
  linearDeflectionType: 'bounding_box_ratio' | 'absolute_value'
  linearDeflection: number
  angularDeflection: number
}

export interface OcctNode {
  name: string
  /** Indices into the result's meshes. */
  meshes: number[]
  children: OcctNode[]
}

/** One B-rep solid or shell: triangles in world coordinates, the file's unit converted. */
export interface OcctMesh {
  name: string
  /** Linear RGB, when the file colors the shape. */
  color: [number, number, number] | null
  position: Float32Array
  normal: Float32Array | null
  index: Uint32Array
  /** The source faces' triangle ranges (inclusive), with their own color when they have one. */
  faces: { first: number; last: number; color: [number, number, number] | null }[]
}

export type OcctReply =
  | { kind: 'ok'; root: OcctNode; meshes: OcctMesh[] }
  /** The reader reported failure (success: false). */
  | { kind: 'failed' }
  /** The reader threw (wasm trap or C++ exception): the module may be damaged. */
  | { kind: 'crashed'; message: string }
  | { kind: 'timeout' }

// Plain CommonJS so it runs in an eval worker whatever loader (tsx or none) the process uses.
// Converting occt's number arrays to typed arrays here lets them be transferred, not cloned.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const ready = require(workerData.modulePath)({ print() {}, printErr() {} })
const READERS = { step: 'ReadStepFile', iges: 'ReadIgesFile', brep: 'ReadBrepFile' }
parentPort.on('message', async ({ format, bytes, params }) => {
  let reply
  const transfer = []
  try {
    const occt = await ready
    const result = occt[READERS[format]](bytes, params)
    if (!result.success) {
      reply = { kind: 'failed' }
    } else {
      const meshes = result.meshes.map((mesh) => {
        const position = Float32Array.from(mesh.attributes.position.array)
        const normal = mesh.attributes.normal ? Float32Array.from(mesh.attributes.normal.array) : null
        const index = Uint32Array.from(mesh.index.array)
        transfer.push(position.buffer, index.buffer)
        if (normal) transfer.push(normal.buffer)
        return { name: mesh.name ?? '', color: mesh.color ?? null, position, normal, index, faces: mesh.brep_faces ?? [] }
      })
      reply = { kind: 'ok', root: result.root, meshes }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : 'a C++ exception escaped the OpenCascade wasm module'
    parentPort.postMessage({ kind: 'crashed', message })
    return
  }
  parentPort.postMessage(reply, transfer)
})
`

let current: Worker | undefined
let queue: Promise<unknown> = Promise.resolve()

/** Reads one file; calls are queued, since one worker reads one file at a time. */
export function readWithOcct(
  format: OcctFormat,
  bytes: Uint8Array,
  params: OcctParams,
  timeoutMs: number,
): Promise<OcctReply> {
  const run = queue.then(() => readOnce(format, bytes, params, timeoutMs))
  queue = run.catch(() => undefined)
  return run
}

function workerInstance(): Worker {
  if (!current) {
    const modulePath = createRequire(import.meta.url).resolve('occt-import-js')
    current = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath } })
    // An idle reader must not keep the process alive; a pending read holds its deadline timer.
    current.unref()
  }
  return current
}

function discard(worker: Worker): void {
  if (current === worker) current = undefined
  void worker.terminate()
}

function readOnce(
  format: OcctFormat,
  bytes: Uint8Array,
  params: OcctParams,
  timeoutMs: number,
): Promise<OcctReply> {
  const worker = workerInstance()
  return new Promise<OcctReply>((resolve, reject) => {
    const finish = (outcome: () => void): void => {
      clearTimeout(timer)
      worker.off('message', onMessage).off('error', onError).off('exit', onExit)
      outcome()
    }
    const onMessage = (message: unknown): void => {
      const reply = message as OcctReply
      if (reply.kind === 'crashed') discard(worker)
      finish(() => resolve(reply))
    }
    const onError = (error: Error): void => {
      discard(worker)
      finish(() => reject(error))
    }
    const onExit = (code: number): void => {
      discard(worker)
      finish(() => reject(new Error(`the OpenCascade worker exited with code ${code}`)))
    }
    const timer = setTimeout(() => {
      discard(worker)
      finish(() => resolve({ kind: 'timeout' }))
    }, timeoutMs)
    worker.on('message', onMessage).on('error', onError).on('exit', onExit)
    // A copy, transferred: the caller keeps its bytes and nothing is cloned twice. (Not slice():
    // on a Node Buffer it is a view, and transferring would detach the caller's memory.)
    const copy = new Uint8Array(bytes)
    worker.postMessage({ format, bytes: copy, params }, [copy.buffer])
  })
}
