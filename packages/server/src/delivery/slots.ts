// What a worker holds in this process: attempts in flight, slots reserved for deliveries handed over
// by transactions not yet ended, and finished attempts waiting for a round to record them.
import type { Finished } from './record.ts'
import { sleepMs } from './scheduling.ts'

export class Slots {
  readonly inFlight = new Map<string, Promise<void>>()
  /** Slots held for deliveries handed over by transactions not yet ended. */
  reserved = 0
  /** Finished attempts waiting for the next round to record them. */
  #finished: Finished[] = []
  /** Ends untilDrained's wait (one waiter: the worker's loop). */
  #onDrained: (() => void) | null = null

  readonly max: number

  constructor(max: number) {
    this.max = max
  }

  /** Attempts that could start now, all webhooks together. */
  free(): number {
    return this.max - this.inFlight.size - this.reserved
  }

  /** An attempt in flight ended (recorded or not). */
  ended(id: string): void {
    this.inFlight.delete(id)
    if (this.inFlight.size === 0) this.#onDrained?.()
  }

  /** Waits until no attempt is in flight, `ms` at most. */
  untilDrained(ms: number): Promise<void> {
    if (this.inFlight.size === 0 || ms <= 0) return sleepMs(0)
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.#onDrained = null
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.#onDrained = done
    })
  }

  /** Finished attempts of `webhookId` not recorded yet: their leases hold no connection. */
  finishedOf(webhookId: string): number {
    let finished = 0
    for (const item of this.#finished) if (item.job.webhook_id === webhookId) finished += 1
    return finished
  }

  /** Reads the list when called: a round may have taken (and replaced) it while the attempt ran. */
  addFinished(item: Finished): void {
    this.#finished.push(item)
  }

  /** Finished attempts not recorded yet. */
  get finishedCount(): number {
    return this.#finished.length
  }

  /** The finished attempts, for a round to record; the list starts over. */
  takeFinished(): Finished[] {
    const batch = this.#finished
    this.#finished = []
    return batch
  }
}
