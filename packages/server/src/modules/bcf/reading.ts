// Reads a BCF file in a worker thread (read-worker.ts) within a time and a heap bound: the file's
// XML can be tens of MiB (fast-xml-parser reads ~10 MB/s here, docs/benchmarks.md), which on the
// main thread would hold every other request for seconds. One worker per import: starting one costs
// ~40 ms, nothing next to the import itself.
import { Worker } from 'node:worker_threads'
import { AppError, type ErrorCode } from '../../platform/errors.ts'
import type { ReadBcf } from './read.ts'

const WORKER = new URL(
  import.meta.url.endsWith('.ts') ? './read-worker.ts' : './read-worker.js',
  import.meta.url,
)
/** How long reading one file may take. */
const BCF_READ_TIMEOUT_MS = 30_000
/** The worker's JavaScript heap (the parsed XML of the largest file allowed fits in a fraction). */
const HEAP_MB = 1024

type Answer = { read: ReadBcf } | { refused: { code: ErrorCode; message: string } }

export function readBcfInWorker(body: Uint8Array): Promise<ReadBcf> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      workerData: body,
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    })
    const timer = setTimeout(() => {
      reject(
        new AppError('BCF_INVALID', `Reading the BCF file took longer than ${BCF_READ_TIMEOUT_MS / 1000} s.`),
      )
      void worker.terminate()
    }, BCF_READ_TIMEOUT_MS)
    worker.once('message', (answer: Answer) => {
      clearTimeout(timer)
      if ('read' in answer) resolve(answer.read)
      else reject(new AppError(answer.refused.code, answer.refused.message))
      void worker.terminate()
    })
    worker.once('error', (error) => {
      clearTimeout(timer)
      // ERR_WORKER_OUT_OF_MEMORY: past the heap bound, the file's fault, not the server's.
      const memory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
      reject(
        memory ? new AppError('BCF_INVALID', 'Reading the BCF file needed more memory than allowed.') : error,
      )
    })
  })
}
