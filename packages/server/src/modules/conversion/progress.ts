// Progress of one running conversion, as readers see it on the file record: written at most every
// PROGRESS_EVERY_MS (the latest value of a window is written when the window closes, so a short
// stage is not lost), one write at a time, and never lower than what was written before.
import { setTimeout as sleep } from 'node:timers/promises'

const PROGRESS_EVERY_MS = 250
/** Writes are spaced this much more than the bound: jitter in write latency never brings two closer. */
const MARGIN_MS = 15

export class ProgressWriter {
  readonly #write: (percent: number) => Promise<void>
  readonly #onError: (error: unknown) => void
  #written = -1
  #pending = -1
  #lastWriteAt = Number.NEGATIVE_INFINITY
  #timer: NodeJS.Timeout | null = null
  /** A write is queued or running: it picks up the latest pending value itself. */
  #queued = false
  #inFlight: Promise<void> = Promise.resolve()
  #closed = false

  constructor(write: (percent: number) => Promise<void>, onError: (error: unknown) => void) {
    this.#write = write
    this.#onError = onError
  }

  report(percent: number): void {
    if (this.#closed || percent <= Math.max(this.#written, this.#pending)) return
    this.#pending = percent
    if (this.#timer || this.#queued) return
    const wait = this.#lastWriteAt + PROGRESS_EVERY_MS + MARGIN_MS - Date.now()
    if (wait <= 0) this.#flush()
    else this.#timer = setTimeout(() => this.#flush(), wait)
  }

  /** No more writes (the outcome is being recorded); answers once the last one has finished. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    await this.#inFlight
  }

  #flush(): void {
    this.#timer = null
    this.#queued = true
    // Chained: a slow write never overlaps the next; the spacing is measured from when the last
    // write finished (its commit is visible by then), so however long a commit takes under load,
    // two stored values are never closer than the bound.
    this.#inFlight = this.#inFlight
      .then(async () => {
        const wait = this.#lastWriteAt + PROGRESS_EVERY_MS + MARGIN_MS - Date.now()
        if (wait > 0) await sleep(wait)
        this.#queued = false
        if (this.#closed || this.#pending <= this.#written) return
        const percent = this.#pending
        this.#written = percent
        this.#lastWriteAt = Date.now()
        await this.#write(percent)
        this.#lastWriteAt = Date.now()
      })
      .catch(this.#onError)
  }
}
