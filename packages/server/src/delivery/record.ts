// Recording attempt results, several in one transaction: every attempt row, the delivery's new state
// and the webhook's health change commit together, exactly as if each result had its own
// transaction in the order the attempts finished (the webhook health is replayed in that order).
// A batch of successes, the common case, takes three statements whatever its size (one on
// PostgreSQL, which also starts the worker's round: DeliveryStore.startRound).

import type { Config } from '../platform/config.ts'
import type { Db, Tx } from '../platform/db/index.ts'
import { newId } from '../platform/ids.ts'
import type { AttemptResult } from './attempt.ts'
import type { Job } from './hand-off-port.ts'
import { type AttemptRow, deliveryStore, type Successes } from './store.ts'
import { pauseQueuedDeliveries } from './store-queue.ts'
import { disableWebhook } from './webhook-health.ts'

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
  /** The round claims after recording: recordResults starts it holding the claim lock. */
  claiming: boolean
}

/** What a result came to: the delivery's new status, or null when its lease had been lost. */
export interface Recorded {
  status: string | null
  at: number
  /** Set when this result disabled its webhook. */
  disabled: string | null
}

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

function attemptRow(item: Finished, now: number): AttemptRow {
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

/**
 * Records `batch` (in the order the attempts finished) in `tx` and starts the worker's round
 * (DeliveryStore.startRound; on PostgreSQL a batch of successes does both in one statement).
 * Answers one Recorded per item.
 */
export async function recordResults(tx: Tx, batch: Finished[], options: RecordOptions): Promise<Recorded[]> {
  const { workerId, claiming } = options
  const store = deliveryStore(options.db)
  const now = Date.now()
  const successes = batch.length > 0 ? allSucceeded(batch, workerId, now, claiming) : null
  if (successes) {
    // Starts the round too (DeliveryStore.recordSuccesses).
    const settledIds = await store.recordSuccesses(tx, successes)
    return recordedSuccesses(batch, settledIds, now)
  }
  const rows = batch.map((item) => attemptRow(item, now))
  const ids = batch.filter((item) => item.result.ok).map((item) => item.job.id)
  let recorded: Recorded[] = []
  if (batch.length > 0) {
    await store.insertAttempts(tx, rows)
    recorded = await replayWithFailures(
      tx,
      batch,
      await store.markSucceeded(tx, ids, workerId, now),
      now,
      options,
    )
  }
  await store.startRound(tx, claiming)
  return recorded
}

/** `batch` (empty too) as one Successes when every attempt in it succeeded; null when one failed. */
function allSucceeded(batch: Finished[], workerId: string, now: number, claiming: boolean): Successes | null {
  if (!batch.every((item) => item.result.ok)) return null
  return {
    rows: batch.map((item) => attemptRow(item, now)),
    ids: batch.map((item) => item.job.id),
    workerId,
    now,
    // Test deliveries never touch their webhook's health.
    hookIds: [...new Set(batch.filter((i) => i.job.is_test === 0).map((i) => i.job.webhook_id))],
    claiming,
  }
}

/** What each success of `batch` came to: succeeded, or null where the lease had been lost. */
function recordedSuccesses(batch: Finished[], settledIds: ReadonlySet<string>, now: number): Recorded[] {
  return batch.map((item) => ({
    status: settledIds.has(item.job.id) ? 'succeeded' : null,
    at: now,
    disabled: null,
  }))
}

/** Failures in the batch: replays the webhooks' health in order, settling each failed delivery. */
async function replayWithFailures(
  tx: Tx,
  batch: Finished[],
  settledIds: Set<string>,
  now: number,
  options: RecordOptions,
): Promise<Recorded[]> {
  const { workerId } = options
  const store = deliveryStore(options.db)
  const health = new Map<string, Health>()
  for (const row of await store.readHealth(tx, [...new Set(batch.map((item) => item.job.webhook_id))])) {
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
      settled = await store.settleDelivery(
        tx,
        item.job.id,
        workerId,
        {
          status: outcome.status,
          nextAt: outcome.nextAt,
          statusCode: result.status,
          errorCode: result.errorCode,
          completedAt: outcome.status === 'failed' ? now : null,
        },
        now,
      )
    }
    if (outcome.disableReason && hook) {
      hook.disabled = 1
      // Right away, as a transaction of its own would have: later results see the pause.
      await disableWebhook(tx, item.job.webhook_id, outcome.disableReason, now)
      await pauseQueuedDeliveries(tx, item.job.webhook_id, now)
    }
    recorded.push({ status: settled ? outcome.status : null, at: now, disabled: outcome.disableReason })
  }
  for (const [id, hook] of health) {
    if (hook.failing_since !== hook.readFailingSince) await store.setFailingSince(tx, id, hook.failing_since)
  }
  return recorded
}
