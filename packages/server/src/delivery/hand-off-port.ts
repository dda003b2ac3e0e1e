// The hand-off port: how the fan-out (sqlite/fan-out.ts) passes new deliveries of an emit straight
// to an in-process delivery worker, and the delivery job they become.
//
// The port is injected, not looked up: server-context.ts makes one per context
// (ServerContext.deliveryHandOff) and the worker it starts attaches to it, and the fan-out finds it
// in the `ctx` every emitter already passes to emitEvent (the modules hand their AppContext on
// untouched). So no module-global registry keyed by Db is needed, and an emitter without the port
// (another process, a script, a test building its own ctx) simply leaves its deliveries for a
// worker to claim.
import type { Db } from '../platform/db/index.ts'

/** A due delivery with what sending it needs: its webhook and its event (a claim's row). */
export interface Job {
  id: string
  uuid: string
  attempts: number
  owner_email: string
  webhook_id: string
  next_attempt_at: number
  url: string
  secret: string
  service_token: string
  previous_secret: string | null
  previous_secret_expires_at: number | null
  webhook_disabled: number
  /** A test delivery: sent with `x-service-test: 1`, even while disabled, never touching health. */
  is_test: number
  event_created_at: number
  file_id: string
  event: string
  data: string
  run_timestamp: number
}

/**
 * An in-process delivery worker that takes new deliveries straight from the emitting transaction
 * (SQLite): the fan-out writes them already leased to it and hands them over at commit, so they go
 * out at once, without a claim round trip through the database.
 */
export interface DeliveryHandOff {
  /** The database it delivers from; only emits on that one are handed over. */
  readonly db: Db
  /** The worker's lease holder id. */
  readonly id: string
  readonly leaseMs: number
  /** Whether it can start one more attempt for `webhookId`, whose live leases number `leases`. */
  canTake(webhookId: string, leases: number): boolean
  /** Holds a slot for a delivery of the transaction in progress. */
  reserve(): void
  /** The transaction ended: committed jobs are sent now, slots of rolled-back ones freed. */
  settle(jobs: Job[], committed: boolean): void
}

/** The slot a worker attaches to; the fan-out reads it. */
export class HandOffPort {
  #taker: DeliveryHandOff | null = null

  /** The attached worker, if it delivers from `db`. */
  takerFor(db: Db): DeliveryHandOff | null {
    return this.#taker !== null && this.#taker.db === db ? this.#taker : null
  }

  /** Attaches `taker` (replacing any other); answers the detach. */
  attach(taker: DeliveryHandOff): () => void {
    this.#taker = taker
    return () => {
      if (this.#taker === taker) this.#taker = null
    }
  }
}

/** What a context offers the delivery engine: the port, where a worker may listen. */
export interface DeliveryPorts {
  deliveryHandOff: HandOffPort
}

/** The port in an emitter's context (opaque to the outbox), if it carries one. */
export function handOffPortOf(ctx: { deliveryHandOff?: unknown }): HandOffPort | undefined {
  return ctx.deliveryHandOff instanceof HandOffPort ? ctx.deliveryHandOff : undefined
}
