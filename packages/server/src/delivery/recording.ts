// A worker's round: the results of the attempts that finished since the last round (record.ts),
// then a claim for the free slots (claim.ts), in one transaction.
import type { Logger } from 'pino'
import type { Config } from '../platform/config.ts'
import { commitWithoutFlushWait, type Db } from '../platform/db/index.ts'
import { type Claimed, claimDue } from './claim.ts'
import { type Finished, type Recorded, recordResults } from './record.ts'
import { lockClaimsWithoutFlushWait } from './store-claim.ts'

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

/** Records `batch` and claims up to `limit` deliveries, in one transaction. */
export async function recordAndClaim(
  options: RoundOptions,
  batch: Finished[],
  limit: number,
): Promise<RoundDone> {
  const { db, config } = options
  let recorded: Recorded[] = []
  const claimed = await db.kysely.transaction().execute(async (tx) => {
    // Lost in a database crash, a round's writes only make an attempt go out again. A round that
    // claims says so with its claim lock (one round trip fewer).
    if (limit === 0) await commitWithoutFlushWait(db, tx)
    if (batch.length > 0) recorded = await recordResults(tx, batch, options)
    if (limit === 0) return nothingClaimed()
    // One claimer at a time per database, so in-flight counts per webhook cannot race. Taken
    // after recording: the results' writes need no lock and should not lengthen its hold.
    await lockClaimsWithoutFlushWait(tx, db)
    return claimDue(tx, {
      db,
      workerId: options.workerId,
      limit,
      maxPerHook: config.webhookMaxInFlight,
      leaseMs: options.leaseMs,
    })
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
        .execute((tx) => recordResults(tx, [item], options))
      recorded(item, outcome)
    } catch (err) {
      // Not recorded: the lease runs out and another attempt is made (at-least-once).
      log.error({ err, delivery: item.job.id }, 'could not record a delivery attempt')
    }
  }
}
