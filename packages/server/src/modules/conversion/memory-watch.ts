// Bounds the real memory of a conversion child. V8's --max-old-space-size covers only the JS heap:
// typed arrays, Buffers and wasm memories live outside it, so a 260-byte GLB once made a child with
// a 128 MiB setting reach 1.3 GB. The parent samples the child's resident set (VmRSS of
// /proc/<pid>/status, Linux) every RSS_SAMPLE_MS and kills it once it passes the limit.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'

/** Between two samples a child can allocate at most what it touches in this time (~100–200 MB). */
const RSS_SAMPLE_MS = 100

/** Without procfs (macOS, Windows) nothing is sampled: only the heap limit holds there. */
const PROCFS = existsSync('/proc/self/status')

/** The resident set of a process in KiB, or null when it cannot be read (gone, or no procfs). */
async function residentKb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

export class MemoryWatch {
  /** Highest resident set sampled, KiB. */
  peakKb = 0
  /** The limit was passed and `onExceeded` was called (once). */
  exceeded = false
  readonly #timer: NodeJS.Timeout | undefined
  readonly #pid: number
  readonly #limitBytes: number
  readonly #onExceeded: () => void
  #sampling = false

  constructor(pid: number, limitBytes: number, onExceeded: () => void) {
    this.#pid = pid
    this.#limitBytes = limitBytes
    this.#onExceeded = onExceeded
    if (!PROCFS) return
    this.#timer = setInterval(() => void this.#sample(), RSS_SAMPLE_MS)
    // A conversion never keeps the worker process alive on its own.
    this.#timer.unref()
    void this.#sample()
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  async #sample(): Promise<void> {
    if (this.#sampling || this.exceeded) return
    this.#sampling = true
    try {
      const kb = await residentKb(this.#pid)
      if (kb === null) return
      this.peakKb = Math.max(this.peakKb, kb)
      if (kb * 1024 > this.#limitBytes) {
        this.exceeded = true
        this.stop()
        this.#onExceeded()
      }
    } finally {
      this.#sampling = false
    }
  }
}

/** `4 GiB`, `200 MiB`: the limit as an operator wrote it. */
function formatLimit(bytes: number): string {
  const mib = bytes / 1024 ** 2
  return mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024} GiB` : `${Math.round(mib)} MiB`
}

/** The failure message a file shows when its conversion needed more memory than allowed. */
export function memoryExceededReason(limitBytes: number): string {
  return `the conversion needed more memory than allowed (${formatLimit(limitBytes)})`
}

/** What a conversion child takes before it reads its input (Node, the pipeline's modules). */
const CHILD_BASE_BYTES = 128 * 1024 ** 2

/**
 * Why an input of `sizeBytes` cannot convert within `limitBytes`, or null. The child holds the
 * file, and every importer at least one decoded form of it as large (an unzipped entry, three's
 * arrays, glTF-Transform's accessor copies, web-ifc's tape): twice the file on top of the child's
 * base is the least any conversion of it takes, so such a file is refused without starting one.
 */
export function tooLargeForMemory(sizeBytes: number, limitBytes: number): string | null {
  if (2 * sizeBytes + CHILD_BASE_BYTES <= limitBytes) return null
  const mib = Math.round(sizeBytes / 1024 ** 2)
  return `the model file (${mib} MiB) is too large to convert within the memory limit (${formatLimit(limitBytes)})`
}

/** What V8 prints to stderr when the heap limit (set to the same value) is reached first. */
export function isHeapExhaustion(stderr: string): boolean {
  return /JavaScript heap out of memory|Reached heap limit/.test(stderr)
}
