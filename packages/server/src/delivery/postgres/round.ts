// PostgreSQL: a worker's common round (the results of the last attempts, all successes, then a claim)
// as one statement outside any transaction: migration 0019's tessera_worker_round, which does what
// recordSuccesses (store.ts) and claimDue (claim.ts) do, in that order, under the same claim
// lock, and commits as the statement ends. One round trip where the same round took five.
import type { Db } from '../../platform/db/index.ts'
import { run } from '../../platform/db/raw-sql.ts'
import type { Job } from '../hand-off-port.ts'
import type { Lease, Successes } from '../store.ts'

/** tessera_worker_round's answer (JSON). */
export interface OneStatementRound {
  /** The deliveries of the batch it marked succeeded (the others' leases had been lost). */
  settled: string[]
  /** Leased to the worker, by webhook (longest-waiting first), each webhook's by due time. */
  jobs?: Job[]
  /** As Claimed.more: the limit cut the claim short. */
  more?: boolean
  /** As Claimed.saturated. */
  saturated?: boolean
  /** As Claimed.nextDueAt. */
  next?: number | null
  /** A lease has run out: nothing was claimed, claimDue (which takes expired leases over) must run. */
  expired?: boolean
}

const ROUND = 'select tessera_worker_round(?::json, ?::text[], ?::text[], ?, ?, ?, ?, ?) as round'

/**
 * Records `successes` and, when `limit` > 0, claims up to `limit` deliveries (never more than
 * `maxPerHook` live leases per webhook), in one statement that commits on its own.
 */
export async function roundInOneStatement(
  db: Db,
  successes: Successes,
  lease: Lease,
  limit: number,
  maxPerHook: number,
): Promise<OneStatementRound> {
  const params = [
    JSON.stringify(successes.rows),
    successes.ids,
    successes.hookIds,
    lease.workerId,
    lease.now,
    lease.expiresAt,
    limit,
    maxPerHook,
  ]
  const { rows } = await run<{ round: OneStatementRound }>(db.kysely, db, ROUND, params)
  const round = rows[0]?.round
  if (!round) throw new Error('tessera_worker_round answered nothing')
  return round
}
