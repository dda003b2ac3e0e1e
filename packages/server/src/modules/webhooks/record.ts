// Recording attempt results, several in one transaction: every attempt row, the delivery's new state
// and the webhook's health change commit together, exactly as if each result had its own
// transaction in the order the attempts finished (the webhook health is replayed in that order).
// A batch of successes, the common case, takes three statements whatever its size.
import type { Config } from '../../platform/config.ts'
import type { Db, Dialect, Tx } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import type { AttemptResult } from './attempt.ts'
import type { Job } from './claim.ts'
import * as repo from './repository.ts'
import { inList, listParam, run } from './statements.ts'

const JITTER = 0.2

/** Delay before attempt `attemptIndex` (0-based) with ±20% jitter; Retry-After within bounds. */
export function nextDelay(
  schedule: number[],
  attemptIndex: number,
  retryAfterMs: number | null,
  random = Math.random(),
): number {
  const base = schedule[attemptIndex] ?? 0
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random))
  if (retryAfterMs === null) return jittered
  // Honour the receiver's back-off, but never sooner than planned nor later than the longest step.
  const ceiling = Math.max(jittered, ...schedule)
  return Math.min(Math.max(retryAfterMs, jittered), ceiling)
}

export interface Finished {
  job: Job
  started: number
  result: AttemptResult
}

export interface RecordOptions {
  db: Db
  workerId: string
  config: Pick<Config, 'webhookRetryScheduleMs' | 'webhookDisableAfterMs'>
}

/** What a result came to: the delivery's new status, or null when its lease had been lost. */
export interface Recorded {
  status: string | null
  at: number
  /** Set when this result disabled its webhook. */
  disabled: string | null
}

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

/** delivery_attempts' columns, in the order of attemptRow's values. */
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
] as const

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

interface Health {
  disabled: number
  failing_since: number | null
  /** failing_since as read, to write only what changed. */
  readFailingSince: number | null
}

interface Outcome {
  status: string
  nextAt: number
  disableReason: string | null
}

/** The delivery's next state after one attempt; updates `hook` as the webhook's row would change. */
function decide(item: Finished, hook: Health | undefined, now: number, options: RecordOptions): Outcome {
  const { job, result } = item
  const attempt = job.attempts + 1
  const schedule = options.config.webhookRetryScheduleMs
  // Test deliveries are probes: their outcome never moves the webhook's health.
  const counts = job.is_test === 0
  if (result.ok) {
    if (counts && hook) hook.failing_since = null
    return { status: 'succeeded', nextAt: now, disableReason: null }
  }
  let disableReason: string | null = null
  if (counts && result.gone) disableReason = 'gone'
  else if (counts && hook && hook.disabled === 0) {
    const since = hook.failing_since ?? now
    if (now - since >= options.config.webhookDisableAfterMs) disableReason = 'failing'
    else if (hook.failing_since === null) hook.failing_since = now
  }
  let status: string
  let nextAt = now
  if (attempt >= schedule.length) status = 'failed'
  else if (counts && (disableReason || hook?.disabled === 1)) status = 'paused'
  else {
    status = 'pending'
    nextAt = now + nextDelay(schedule, attempt, result.retryAfterMs)
  }
  if (result.gone) status = 'failed'
  if (!(disableReason && hook?.disabled === 0)) disableReason = null
  return { status, nextAt, disableReason }
}

function attemptRow(item: Finished, now: number) {
  const { job, result } = item
  return {
    id: newId(now),
    delivery_id: job.id,
    attempt: job.attempts + 1,
    started_at: item.started,
    duration_ms: result.durationMs,
    status_code: result.status,
    error_code: result.errorCode,
    error_message: result.errorMessage,
    response_excerpt: result.responseExcerpt,
  }
}

/** Records `batch` (in the order the attempts finished) in `tx`; answers one Recorded per item. */
export async function recordResults(tx: Tx, batch: Finished[], options: RecordOptions): Promise<Recorded[]> {
  const { db, workerId } = options
  const { dialect } = db
  const sql = TEXTS[dialect]
  const now = Date.now()
  const succeeded = batch.filter((item) => item.result.ok)
  const settledIds = new Set<string>()
  // SQLite runs on this thread, without round trips: a prepared statement per row costs less there
  // than building a JSON list and walking it (json_each). PostgreSQL takes the batch in one trip.
  if (dialect === 'sqlite') {
    for (const item of batch) {
      const row = attemptRow(item, now)
      await run(
        tx,
        db,
        sql.attempt,
        ATTEMPT_COLUMNS.map((column) => row[column]),
      )
    }
    for (const { job } of succeeded) {
      const { affected } = await run(tx, db, sql.succeededOne, [now, now, now, job.id, workerId])
      if (affected > 0) settledIds.add(job.id)
    }
  } else {
    await run(tx, db, sql.attempts, [JSON.stringify(batch.map((item) => attemptRow(item, now)))])
    if (succeeded.length > 0) {
      const ids = listParam(
        dialect,
        succeeded.map((item) => item.job.id),
      )
      const { rows } = await run<{ id: string }>(tx, db, sql.succeeded, [now, now, now, ids, workerId])
      for (const row of rows) settledIds.add(row.id)
    }
  }
  if (succeeded.length === batch.length) {
    const hookIds = [...new Set(succeeded.filter((i) => i.job.is_test === 0).map((i) => i.job.webhook_id))]
    if (dialect === 'sqlite') for (const id of hookIds) await run(tx, db, sql.healthyOne, [id])
    else if (hookIds.length > 0) await run(tx, db, sql.healthy, [listParam(dialect, hookIds)])
    return batch.map((item) => ({
      status: settledIds.has(item.job.id) ? 'succeeded' : null,
      at: now,
      disabled: null,
    }))
  }

  // Failures in the batch: replay the webhooks' health in order.
  const hookIds = [...new Set(batch.map((item) => item.job.webhook_id))]
  const health = new Map<string, Health>()
  const read = await run<{ id: string; disabled: number; failing_since: number | null }>(tx, db, sql.health, [
    listParam(dialect, hookIds),
  ])
  for (const row of read.rows) {
    const failingSince = row.failing_since === null ? null : Number(row.failing_since)
    health.set(row.id, {
      disabled: row.disabled,
      failing_since: failingSince,
      readFailingSince: failingSince,
    })
  }
  const recorded: Recorded[] = []
  for (const item of batch) {
    const hook = health.get(item.job.webhook_id)
    const outcome = decide(item, hook, now, options)
    let settled = settledIds.has(item.job.id)
    if (!item.result.ok) {
      const { result } = item
      const done = outcome.status === 'failed' ? now : null
      const params = [outcome.status, outcome.nextAt, result.status, result.errorCode, now, done, item.job.id]
      settled = (await run(tx, db, sql.settle, [...params, workerId])).affected > 0
    }
    if (outcome.disableReason && hook) {
      hook.disabled = 1
      // Right away, as a transaction of its own would have: later results see the pause.
      await repo.updateWebhook(
        tx,
        item.job.webhook_id,
        { disabled: 1, disabled_reason: outcome.disableReason },
        now,
      )
      await repo.pauseQueuedDeliveries(tx, item.job.webhook_id, now)
    }
    recorded.push({ status: settled ? outcome.status : null, at: now, disabled: outcome.disableReason })
  }
  for (const [id, hook] of health) {
    if (hook.failing_since !== hook.readFailingSince) {
      await run(tx, db, sql.failing, [hook.failing_since, id])
    }
  }
  return recorded
}
