// When the worker's rounds run. A round starts a moment after a wake-up (1 ms, or as long as the
// last busy round took, up to 10 ms), and every emit, finished attempt or NOTIFY arriving meanwhile
// is served by that one round. Under load each transaction then carries several results and claims
// instead of one; a slower database (PostgreSQL commits) gets proportionally fewer.

/** Bounds of the pause between two busy rounds. */
const MIN_SPACING_MS = 1
const MAX_SPACING_MS = 10
/**
 * The pause before a round that only records results. Nothing waits on it: the receiver has its
 * delivery, and the slot is free already (see canTake and claimDue). A longer pause lets one
 * transaction record more results; until then they stay leased, so a crash re-sends them.
 */
const RECORD_SPACING_MS = 5

export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** The pauses between rounds and the wait when nothing wakes the worker. */
export class Pacer {
  #spacing = MIN_SPACING_MS
  /** When the last claim said something becomes due; null: nothing scheduled. */
  nextDueAt: number | null = null

  /** The pause before the next round. */
  pause(claiming: boolean): number {
    return claiming ? this.#spacing : Math.max(this.#spacing, RECORD_SPACING_MS)
  }

  /** A round took `tookMs`; `busy` when it recorded or claimed something. */
  roundTook(tookMs: number, busy: boolean): void {
    this.#spacing = busy ? Math.min(MAX_SPACING_MS, Math.max(MIN_SPACING_MS, tookMs)) : MIN_SPACING_MS
  }

  /** How long to sleep when nothing wakes the worker: until the next due time, at most `pollMs`. */
  idleMs(pollMs: number): number {
    return this.nextDueAt === null ? pollMs : Math.min(pollMs, this.nextDueAt - Date.now())
  }
}

/** Wakes a sleeping worker; a ring while it is awake makes its next sleep end at once. */
export class Alarm {
  #rung = false
  #wakeUp: (() => void) | null = null

  ring(): void {
    this.#rung = true
    this.#wakeUp?.()
  }

  /** A round starts: rings from now on are for the next one. */
  reset(): void {
    this.#rung = false
  }

  /** Sleeps until rung (answers true) or until `ms` ran out (false). */
  sleep(ms: number): Promise<boolean> {
    if (this.#rung) return Promise.resolve(true)
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), Math.max(0, ms))
      const done = (rung: boolean): void => {
        clearTimeout(timer)
        this.#wakeUp = null
        resolve(rung)
      }
      this.#wakeUp = () => done(true)
    })
  }
}
