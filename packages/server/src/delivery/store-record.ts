// SQL of recording attempt results (record.ts): attempt rows, the deliveries' new state and the
// webhooks' health columns (failing_since; disabled when the engine disables one). Plain text,
// prepared once per dialect (platform/db/raw-sql.ts).
import type { Db, Dialect, Executor, Tx } from '../platform/db/index.ts'
import { inList, listParam, run } from '../platform/db/raw-sql.ts'
import { ROUND_START_COLUMNS } from './store-claim.ts'
import type { DeliveryAttemptsTable } from './tables.ts'

/** One delivery_attempts row, as written (the table's own type: no second list of its columns). */
export type AttemptRow = DeliveryAttemptsTable

/** delivery_attempts' columns, in the order of the table. */
const ATTEMPT_COLUMNS = [
  'id',
  'delivery_id',
  'attempt',
  'started_at',
  'duration_ms',
  'status_code',
  'error_code',
  'error_message',
  'response_excerpt',
] as const satisfies ReadonlyArray<keyof AttemptRow>

interface Texts {
  attempts: string
  /** SQLite: one attempt row. */
  attempt: string
  succeeded: string
  /** SQLite: one delivery of `succeeded`. */
  succeededOne: string
  settle: string
  healthy: string
  /** SQLite: one webhook of `healthy`. */
  healthyOne: string
  health: string
  failing: string
}

function texts(dialect: Dialect): Texts {
  const lease = `leased_by = ? and status = 'delivering'`
  const succeed = `update deliveries set status = 'succeeded', attempts = attempts + 1, next_attempt_at = ?,
      leased_by = null, lease_expires_at = null, last_status_code = 200, last_error_code = null,
      updated_at = ?, completed_at = ?`
  return {
    attempts:
      dialect === 'postgres'
        ? 'insert into delivery_attempts select * from json_populate_recordset(null::delivery_attempts, ?::json)'
        : `insert into delivery_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code,
             error_code, error_message, response_excerpt)
           select value ->> 'id', value ->> 'delivery_id', value ->> 'attempt', value ->> 'started_at',
             value ->> 'duration_ms', value ->> 'status_code', value ->> 'error_code',
             value ->> 'error_message', value ->> 'response_excerpt'
           from json_each(?)`,
    attempt: `insert into delivery_attempts (${ATTEMPT_COLUMNS.join(', ')})
      values (${ATTEMPT_COLUMNS.map(() => '?').join(', ')})`,
    // A success is always a 200 (attempt.ts, judge).
    succeeded: `${succeed} where ${inList(dialect, 'id')} and ${lease} returning id`,
    succeededOne: `${succeed} where id = ? and ${lease}`,
    settle: `update deliveries set status = ?, attempts = attempts + 1, next_attempt_at = ?,
        leased_by = null, lease_expires_at = null, last_status_code = ?, last_error_code = ?,
        updated_at = ?, completed_at = ?
      where id = ? and ${lease}`,
    healthy: `update webhooks set failing_since = null
      where ${inList(dialect, 'id')} and failing_since is not null`,
    healthyOne: 'update webhooks set failing_since = null where id = ? and failing_since is not null',
    health: `select id, disabled, failing_since from webhooks where ${inList(dialect, 'id')}`,
    failing: 'update webhooks set failing_since = ? where id = ?',
  }
}

const TEXTS: Record<Dialect, Texts> = { sqlite: texts('sqlite'), postgres: texts('postgres') }

// PostgreSQL: a batch of successes in one statement (the attempt rows, the deliveries, the webhooks'
// health), which also starts the worker's round (store-claim.ts, ROUND_START_COLUMNS): one round
// trip where it took four.
const pgSuccesses = (claiming: boolean) => {
  const pg = TEXTS.postgres
  return `with attempts as (${pg.attempts}),
    settled as (${pg.succeeded}),
    healthy as (${pg.healthy})
  select array(select id from settled) as settled, ${ROUND_START_COLUMNS[claiming ? 'claiming' : 'recording']}`
}
const PG_SUCCESSES = { claiming: pgSuccesses(true), recording: pgSuccesses(false) }

// SQLite runs on this thread, without round trips: a prepared statement per row costs less there
// than building a JSON list and walking it (json_each). PostgreSQL takes a batch in one trip.
const rowByRow = (db: Db): boolean => db.dialect === 'sqlite'

export async function insertAttempts(tx: Tx, db: Db, rows: AttemptRow[]): Promise<void> {
  const sql = TEXTS[db.dialect]
  if (rowByRow(db)) {
    for (const row of rows) {
      await run(
        tx,
        db,
        sql.attempt,
        ATTEMPT_COLUMNS.map((column) => row[column]),
      )
    }
  } else await run(tx, db, sql.attempts, [JSON.stringify(rows)])
}

/** Marks the deliveries `ids` still leased by `workerId` succeeded; answers those it marked. */
export async function markSucceeded(
  tx: Tx,
  db: Db,
  ids: string[],
  workerId: string,
  now: number,
): Promise<Set<string>> {
  const sql = TEXTS[db.dialect]
  const settled = new Set<string>()
  if (rowByRow(db)) {
    for (const id of ids) {
      const { affected } = await run(tx, db, sql.succeededOne, [now, now, now, id, workerId])
      if (affected > 0) settled.add(id)
    }
  } else if (ids.length > 0) {
    const list = listParam(db.dialect, ids)
    const { rows } = await run<{ id: string }>(tx, db, sql.succeeded, [now, now, now, list, workerId])
    for (const row of rows) settled.add(row.id)
  }
  return settled
}

/** Whether recordSuccesses writes a batch in one statement and starts the round with it. */
export const recordsInOneStatement = (db: Db): boolean => !rowByRow(db)

export interface Successes {
  rows: AttemptRow[]
  /** The deliveries that succeeded (all of the batch's). */
  ids: string[]
  workerId: string
  now: number
  /** Webhooks whose failing_since to clear. */
  hookIds: string[]
  /** The round claims after recording: the statement takes the claim lock too. */
  claiming: boolean
}

/**
 * PostgreSQL (recordsInOneStatement): insertAttempts, markSucceeded and markHealthy in one
 * statement, starting the round as startRound would. Answers the deliveries it marked.
 */
export async function recordSuccesses(tx: Tx, db: Db, batch: Successes): Promise<Set<string>> {
  const text = PG_SUCCESSES[batch.claiming ? 'claiming' : 'recording']
  const { now } = batch
  const params = [JSON.stringify(batch.rows), now, now, now, batch.ids, batch.workerId, batch.hookIds]
  const { rows } = await run<{ settled: string[] }>(tx, db, text, params)
  return new Set(rows[0]?.settled ?? [])
}

/** Clears failing_since of the webhooks `ids`. */
export async function markHealthy(tx: Tx, db: Db, ids: string[]): Promise<void> {
  const sql = TEXTS[db.dialect]
  if (rowByRow(db)) for (const id of ids) await run(tx, db, sql.healthyOne, [id])
  else if (ids.length > 0) await run(tx, db, sql.healthy, [listParam(db.dialect, ids)])
}

export interface HealthRow {
  id: string
  disabled: number
  failing_since: number | null
}

export async function readHealth(tx: Tx, db: Db, ids: string[]): Promise<HealthRow[]> {
  const list = listParam(db.dialect, ids)
  return (await run<HealthRow>(tx, db, TEXTS[db.dialect].health, [list])).rows
}

export interface Settlement {
  status: string
  nextAt: number
  statusCode: number | null
  errorCode: string | null
  completedAt: number | null
}

/** Records a failed attempt's outcome if `workerId` still holds the lease; answers whether it did. */
export async function settleDelivery(
  tx: Tx,
  db: Db,
  id: string,
  workerId: string,
  settlement: Settlement,
  now: number,
): Promise<boolean> {
  const { status, nextAt, statusCode, errorCode, completedAt } = settlement
  const params = [status, nextAt, statusCode, errorCode, now, completedAt, id, workerId]
  return (await run(tx, db, TEXTS[db.dialect].settle, params)).affected > 0
}

export async function setFailingSince(tx: Tx, db: Db, id: string, since: number | null): Promise<void> {
  await run(tx, db, TEXTS[db.dialect].failing, [since, id])
}

/** Disables a webhook for `reason` (a new revision, as a change by its owner would make). */
export async function disableWebhook(db: Executor, id: string, reason: string, now: number): Promise<void> {
  await db
    .updateTable('webhooks')
    .set((eb) => ({ disabled: 1, disabled_reason: reason, updated_at: now, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .execute()
}
