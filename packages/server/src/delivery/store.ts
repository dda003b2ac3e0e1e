// The delivery engine's hot-path SQL behind one interface, one implementation per database
// (sqlite/, postgres/), chosen once per opened database as Kysely picks its dialect's parts: no
// call below asks which database it runs on. Plain-text statements (platform/db/raw-sql.ts).
import type { EmitHook } from '../events/index.ts'
import { chosenPerDatabase, type Tx } from '../platform/db/index.ts'
import type { Job } from './hand-off-port.ts'
import { openPostgresDelivery } from './postgres/store.ts'
import { openSqliteDelivery } from './sqlite/store.ts'
import type { DeliveryAttemptsTable } from './tables.ts'

/** A webhook with pending deliveries (claim.ts), or the last row (id null): the first lease expiry. */
export interface HookRow {
  id: string | null
  next_at: number | null
  busy: number | null
  lease_next: number | null
}

export interface Lease {
  workerId: string
  expiresAt: number
  now: number
}

interface DueTaken {
  /** Leased to the claimer, by due time. */
  jobs: Job[]
  /** When the webhook's first delivery not yet due is; null: none is (or it was not looked for). */
  later: number | null
}

/** One delivery_attempts row, as written (the table's own type: no second list of its columns). */
export type AttemptRow = DeliveryAttemptsTable

export interface Successes {
  rows: AttemptRow[]
  /** The deliveries that succeeded (all of the batch's). */
  ids: string[]
  workerId: string
  now: number
  /** Webhooks whose failing_since to clear. */
  hookIds: string[]
  /** The round claims after recording: the round starts holding the claim lock. */
  claiming: boolean
}

export interface HealthRow {
  id: string
  disabled: number
  failing_since: number | null
}

interface Settlement {
  status: string
  nextAt: number
  statusCode: number | null
  errorCode: string | null
  completedAt: number | null
}

export interface DeliveryStore {
  /** The fan-out's hook in the outbox's emits on this database (events/subscribers.ts). */
  readonly fanOut: EmitHook

  // ---- the claim (claim.ts) ----
  /** Every webhook with pending deliveries, and the row of the earliest lease expiry (id null). */
  webhooksWithPending(tx: Tx, now: number): Promise<HookRow[]>
  /** Up to `limit` deliveries whose lease ran out, oldest expiry first (locked on PostgreSQL). */
  expiredLeases(tx: Tx, now: number, limit: number): Promise<Job[]>
  /** Live leases of each of `webhookIds` that has any. */
  liveLeaseCounts(tx: Tx, now: number, webhookIds: string[]): Promise<Map<string, number>>
  /** Leases up to `limit` due deliveries of `webhookId`. The caller holds the claim lock. */
  leaseDue(tx: Tx, webhookId: string, limit: number, lease: Lease): Promise<DueTaken>
  /** Leases `ids` to the lease's holder. */
  leaseDeliveries(tx: Tx, ids: string[], lease: Lease): Promise<void>
  /**
   * Starts a worker's round: lets it commit without waiting for the WAL flush and, when
   * `claiming`, serialises claimers until commit (PostgreSQL; SQLite has nothing to do).
   */
  startRound(tx: Tx, claiming: boolean): Promise<void>

  // ---- recording results (record.ts) ----
  /** A batch of successes: attempt rows, deliveries succeeded, webhooks healthy; starts the round. */
  recordSuccesses(tx: Tx, batch: Successes): Promise<Set<string>>
  insertAttempts(tx: Tx, rows: AttemptRow[]): Promise<void>
  /** Marks the deliveries `ids` still leased by `workerId` succeeded; answers those it marked. */
  markSucceeded(tx: Tx, ids: string[], workerId: string, now: number): Promise<Set<string>>
  readHealth(tx: Tx, ids: string[]): Promise<HealthRow[]>
  /** Records a failed attempt's outcome if `workerId` still holds the lease; answers whether it did. */
  settleDelivery(tx: Tx, id: string, workerId: string, settlement: Settlement, now: number): Promise<boolean>
  setFailingSince(tx: Tx, id: string, since: number | null): Promise<void>
}

/** `db`'s delivery store, chosen when first asked for (once per opened database). */
export const deliveryStore = chosenPerDatabase<DeliveryStore>({
  sqlite: openSqliteDelivery,
  postgres: openPostgresDelivery,
})
