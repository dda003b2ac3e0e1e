// When the worker's rounds run. A claiming round starts once a wake-up came and a moment has passed
// since the last round ended (1 ms, or as long as the last busy round took, up to 10 ms), and every
// emit, finished attempt or NOTIFY arriving meanwhile is served by that one round. Under load each
// transaction then carries several results and claims instead of one, and a slower database
// (PostgreSQL commits) gets proportionally fewer; a wake-up after a quiet moment starts a round at
// once.

/** Bounds of the pause between two busy rounds. */
const MIN_SPACING_MS = 1
const MAX_SPACING_MS = 10
/**
 * The pause before a round that only records results. Nothing waits on it: the receiver has its
 * delivery, and the slot is free already (see canTake and claimDue). A longer pause lets one
 * transaction record more results; until then they stay leased, so a crash re-sends them. New work
 * arriving meanwhile ends it (worker.ts): the round then claims, a claiming round's pause after
 * the last one.
 */
const RECORD_SPACING_MS = 5

/** Waits `ms`; nothing (a turn of the event loop, without the timers' 1 ms floor) when ms <= 0. */
export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)))
}

/** The pauses between rounds and the wait when nothing wakes the worker. */
export class Pacer {
  #spacing = MIN_SPACING_MS
  /** performance.now() when the last round ended. */
  #lastEnded = Number.NEGATIVE_INFINITY
  /** When the last claim said something becomes due; null: nothing scheduled. */
  nextDueAt: number | null = null
  /** The last round left due deliveries for want of free slots of their webhooks. */
  saturated = false

  /** The pause before the next round, woken now. */
  pause(claiming: boolean): number {
    if (!claiming) return Math.max(this.#spacing, RECORD_SPACING_MS)
    return Math.max(0, this.#lastEnded + this.#spacing - performance.now())
  }

  /** A round took `tookMs`; `busy` when it recorded or claimed something. */
  roundTook(tookMs: number, busy: boolean, saturated: boolean): void {
    this.saturated = saturated
    this.#lastEnded = performance.now()
    this.#spacing = busy ? Math.min(MAX_SPACING_MS, Math.max(MIN_SPACING_MS, tookMs)) : MIN_SPACING_MS
  }

  /** How long to sleep when nothing wakes the worker: until the next due time, at most `pollMs`. */
  idleMs(pollMs: number): number {
    return this.nextDueAt === null ? pollMs : Math.min(pollMs, this.nextDueAt - Date.now())
  }
}
