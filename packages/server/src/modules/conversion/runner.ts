// Runs one conversion in a child process (child.ts) under a time budget and a memory limit (its
// resident set, watched from here: memory-watch.ts; V8's heap limit is set to the same value): the
// input is streamed from the blob store to a private temp dir, the GLB comes back as a file there.
import { type ChildProcess, fork } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import type { BlobStore } from '../../platform/blobs/index.ts'
import { isHeapExhaustion, MemoryWatch, memoryExceededReason, tooLargeForMemory } from './memory-watch.ts'
import type { TreeNode } from './pipeline/types.ts'
import type { ChildMessage, ChildRequest } from './protocol.ts'
import { CONVERSION_TEMP_PREFIX } from './sweep.ts'

export type RunOutcome =
  | {
      kind: 'converted'
      glbPath: string
      /** null when no thumbnail could be made (`thumbnailError` says why). */
      thumbnailPath: string | null
      thumbnailError: string | null
      tree: TreeNode[]
      /** The nodes' properties, one JSON line per node (pipeline/node-properties.ts). */
      propertiesPath: string
      /** What the property bounds cut (for the job's log); empty when nothing. */
      propertiesTruncated: string[]
      triangles: number
      /** Peak resident memory of the conversion process, KiB. */
      maxRssKb: number
    }
  /** The input cannot be converted, or needed more memory than allowed: final, `reason` is shown. */
  | { kind: 'rejected'; reason: string }
  | { kind: 'failed'; detail: string }
  /** The process died without an answer (out of memory, killed, native crash): worth a retry. */
  | { kind: 'crashed'; detail: string }
  | { kind: 'timed-out' }
  /** stop() was called (shutdown): the job goes back to the queue untouched. */
  | { kind: 'aborted' }

export interface RunOptions {
  blobs: BlobStore
  blobKey: string
  fileName: string
  timeoutMs: number
  /** Bound of the child's resident set (and of its V8 heap). */
  maxMemoryBytes: number
  onProgress: (percent: number) => void
}

// The child runs from the TypeScript sources (Node strips the types), or from the build output.
const CHILD = new URL(import.meta.url.endsWith('.ts') ? './child.ts' : './child.js', import.meta.url)
const STDERR_KEPT = 8 * 1024

export class ConversionRun {
  readonly outcome: Promise<RunOutcome>
  #child: ChildProcess | null = null
  #aborted = false
  #dir: string | null = null
  #watch: MemoryWatch | null = null

  readonly options: RunOptions

  constructor(options: RunOptions) {
    this.options = options
    this.outcome = this.#run()
  }

  /** Ends the conversion now (shutdown); the outcome becomes `aborted`. */
  abort(): void {
    this.#aborted = true
    this.#child?.kill('SIGKILL')
  }

  /** Highest resident set of the child sampled so far, KiB (0 before it starts, or without procfs). */
  get peakRssKb(): number {
    return this.#watch?.peakKb ?? 0
  }

  /** Removes the temp dir (and the GLB in it): call once the outcome has been handled. */
  async dispose(): Promise<void> {
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true })
  }

  async #run(): Promise<RunOutcome> {
    const { blobs, blobKey, fileName } = this.options
    // Named after this process, so a restart can sweep it if the process dies (sweep.ts).
    this.#dir = await mkdtemp(CONVERSION_TEMP_PREFIX)
    const request: ChildRequest = {
      inputPath: join(this.#dir, 'input'),
      name: fileName,
      outputPath: join(this.#dir, 'output.glb'),
      thumbnailPath: join(this.#dir, 'thumbnail.png'),
      propertiesPath: join(this.#dir, 'properties.ndjson'),
    }
    await pipeline(await blobs.get(blobKey), createWriteStream(request.inputPath, { mode: 0o600 }))
    if (this.#aborted) return { kind: 'aborted' }
    const tooLarge = tooLargeForMemory((await stat(request.inputPath)).size, this.options.maxMemoryBytes)
    if (tooLarge) return { kind: 'rejected', reason: tooLarge }
    return this.#spawn(request)
  }

  #spawn(request: ChildRequest): Promise<RunOutcome> {
    const { timeoutMs, maxMemoryBytes, onProgress } = this.options
    const heapMb = Math.max(64, Math.floor(maxMemoryBytes / (1024 * 1024)))
    const child = fork(fileURLToPath(CHILD), [], {
      execArgv: [`--max-old-space-size=${heapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    this.#child = child
    if (this.#aborted) child.kill('SIGKILL')
    const watch = child.pid ? new MemoryWatch(child.pid, maxMemoryBytes, () => child.kill('SIGKILL')) : null
    this.#watch = watch
    let stderr = ''
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT)
    })
    return new Promise<RunOutcome>((resolve) => {
      let answer: RunOutcome | null = null
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        child.kill('SIGKILL')
      }, timeoutMs)
      child.on('message', (message: ChildMessage) => {
        if (message.type === 'progress') onProgress(message.percent)
        else if (message.type === 'converted') {
          answer = {
            kind: 'converted',
            glbPath: request.outputPath,
            thumbnailPath: message.thumbnailError === null ? request.thumbnailPath : null,
            thumbnailError: message.thumbnailError,
            tree: message.tree,
            propertiesPath: request.propertiesPath,
            propertiesTruncated: message.propertiesTruncated,
            triangles: message.stats.triangles,
            maxRssKb: message.maxRssKb,
          }
        } else if (message.type === 'rejected') answer = { kind: 'rejected', reason: message.reason }
        else answer = { kind: 'failed', detail: message.detail }
      })
      child.once('error', (error) => {
        // fork itself failed (no such file, EAGAIN): the process never ran.
        answer ??= { kind: 'crashed', detail: error.message }
      })
      child.once('close', (code, signal) => {
        clearTimeout(timer)
        watch?.stop()
        this.#child = null
        if (this.#aborted) resolve({ kind: 'aborted' })
        else if (timedOut) resolve({ kind: 'timed-out' })
        else if (answer) resolve(answer)
        else if (watch?.exceeded || isHeapExhaustion(stderr)) {
          // The same input would need as much again: final, not a crash worth retrying.
          resolve({ kind: 'rejected', reason: memoryExceededReason(maxMemoryBytes) })
        } else {
          const how = signal ? `signal ${signal}` : `exit code ${code}`
          resolve({ kind: 'crashed', detail: `${how}${stderr ? `: ${stderr.trim()}` : ''}` })
        }
      })
      child.send(request)
    })
  }
}
