// The worker's side of the hand-off port (hand-off-port.ts): new deliveries of this process's
// emits, leased to the worker in the emitting transaction and started at its commit.

import type { Db } from '../platform/db/index.ts'
import type { DeliveryHandOff, Job } from './hand-off-port.ts'
import type { Slots } from './slots.ts'

/** What the hand-off needs of its worker. */
export interface HandOffHost {
  readonly db: Db
  readonly id: string
  readonly leaseMs: number
  readonly slots: Slots
  /** TESSERA_WEBHOOK_MAX_IN_FLIGHT: live leases per webhook, all processes together. */
  readonly maxPerHook: number
  running(): boolean
  launch(job: Job): void
}

export class WorkerHandOff implements DeliveryHandOff {
  readonly db: Db
  readonly id: string
  readonly leaseMs: number

  readonly host: HandOffHost

  constructor(host: HandOffHost) {
    this.host = host
    this.db = host.db
    this.id = host.id
    this.leaseMs = host.leaseMs
  }

  canTake(webhookId: string, leases: number): boolean {
    const { slots } = this.host
    if (!this.host.running() || slots.inFlight.size + slots.reserved >= slots.max) return false
    // Leases of attempts that finished here but are not recorded yet hold no connection.
    return leases - slots.finishedOf(webhookId) < this.host.maxPerHook
  }

  reserve(): void {
    this.host.slots.reserved += 1
  }

  settle(jobs: Job[], committed: boolean): void {
    this.host.slots.reserved -= jobs.length
    // A worker stopping meanwhile releases the leases it holds, these included (see stop).
    if (committed && this.host.running()) for (const job of jobs) this.host.launch(job)
  }
}
