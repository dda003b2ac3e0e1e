// The worker thread a BCF file is read in (reading.ts starts it): unzipping and parsing a large file
// is seconds of CPU, which must not stop the event loop every other request runs on, and its heap is
// bounded by the worker's own resource limits. Posts back the package, or the refusal's code and
// message.
import { parentPort, workerData } from 'node:worker_threads'
import { AppError } from '../../platform/errors.ts'
import { readBcf } from './read.ts'

try {
  const read = readBcf(workerData as Uint8Array)
  const snapshots = read.bcf.topics.flatMap((t) =>
    t.viewpoints.flatMap((v) => (v.snapshot ? [v.snapshot.bytes.buffer] : [])),
  )
  parentPort?.postMessage({ read }, [...new Set(snapshots)] as ArrayBuffer[])
} catch (error) {
  const refused = error instanceof AppError ? { code: error.code, message: error.message } : undefined
  parentPort?.postMessage({ refused: refused ?? { code: 'INTERNAL_ERROR', message: String(error) } })
}
