// A worker's round: the results of the attempts that finished since the last round (record.ts),
// then a claim for the free slots (claim.ts), in one transaction, on both databases. (PostgreSQL had
// a second implementation of the round, a PL/pgSQL function; measured no faster with
// `npm run bench:delivery`, it was dropped by migration 0027.)
import type { Logger } from 'pino'
import type { Config } from '../platform/config.ts'
import type { Db } from '../platform/db/index.ts'
import { type Claimed, type ClaimOptions, claimDue } from './claim.ts'
import { type Finished, type Recorded, recordResults } from './record.ts'

export interface RoundOptions {
  db: Db
  workerId: string
  config: Config
  leaseMs: number
}

export interface RoundDone {
  claimed: Claimed
  /** One per finished attempt of the batch, in order. */
  recorded: Recorded[]
}

const nothingClaimed = (): Claimed => ({ jobs: [], more: false, saturated: false, nextDueAt: null })

/** What claimDue needs of a round's options. */
const claimOptions = (options: RoundOptions, limit: number): ClaimOptions => ({
  db: options.db,
  workerId: options.workerId,
  limit,
  maxPerHook: options.config.webhookMaxInFlight,
  leaseMs: options.leaseMs,
})

/** Records `batch` and claims up to `limit` deliveries, in one transaction. */
export async function recordAndClaim(
  options: RoundOptions,
  batch: Finished[],
  limit: number,
): Promise<RoundDone> {
  const { db } = options
  let recorded: Recorded[] = []
  const claimed = await db.kysely.transaction().execute(async (tx) => {
    // The round starts (DeliveryStore.startRound) with the statement that records the results:
    // its commit does not wait for the WAL flush and, when it claims, it holds the claim lock, so
    // in-flight counts per webhook cannot race between claimers. Taken at the end of recording:
    // the results' writes need no lock and should not lengthen its hold.
    recorded = await recordResults(tx, batch, { ...options, claiming: limit > 0 })
    if (limit === 0) return nothingClaimed()
    return claimDue(tx, claimOptions(options, limit))
  })
  return { claimed, recorded }
}

/**
 * Records each result in a transaction of its own, after a round failed: one bad result (say, its
 * delivery was deleted with its webhook) must not hold up the others. Calls `recorded` for each
 * one that was.
 */
export async function recordOneByOne(
  options: RoundOptions,
  batch: Finished[],
  log: Logger,
  recorded: (item: Finished, outcome: Recorded[]) => void,
): Promise<void> {
  for (const item of batch) {
    try {
      const outcome = await options.db.kysely
        .transaction()
        .execute((tx) => recordResults(tx, [item], { ...options, claiming: false }))
      recorded(item, outcome)
    } catch (err) {
      // Not recorded: the lease runs out and another attempt is made (at-least-once).
      log.error({ err, delivery: item.job.id }, 'could not record a delivery attempt')
    }
  }
}
