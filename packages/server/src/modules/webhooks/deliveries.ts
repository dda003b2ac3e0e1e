// The delivery log and its operations: list, detail, retry, recover, test. Scoped like the
// registrations: another account's webhook or delivery answers 404 exactly like an unknown one.
import { type AttemptErrorCode, type EventName, sampleData } from '../../contract/index.ts'
import * as engine from '../../delivery/index.ts'
import { publicBucketName } from '../../platform/blobs/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { isId, newId } from '../../platform/ids.ts'
import { idCursor, pageOfRows, pageStart } from '../../platform/paging.ts'
import * as repo from './repository.ts'
import type { DeliveryStatus } from './schemas.ts'
import type { Owner } from './service.ts'

const DEFAULT_PAGE_SIZE = 50
/** The most deliveries one page of the log holds. */
const MAX_PAGE_SIZE = 200

export interface DeliverySummaryShape {
  _id: string
  uuid: string
  webhook: string
  event: EventName
  file: string
  status: DeliveryStatus
  test: boolean
  attemptCount: number
  nextAttemptAt: string | null
  lastStatusCode: number | null
  lastErrorCode: AttemptErrorCode | null
  created: string
  updated: string
  completed: string | null
}

interface AttemptShape {
  attempt: number
  startedAt: string
  finishedAt: string
  durationMs: number
  statusCode: number | null
  errorCode: AttemptErrorCode | null
  errorMessage: string | null
  responseExcerpt: string
}

export interface DeliveryDetailShape extends DeliverySummaryShape {
  payload: {
    file: string
    event: EventName
    data: unknown
    owner: string
    runTimestamp: number
    uuid: string
  }
  attempts: AttemptShape[]
}

const iso = (ms: number): string => new Date(ms).toISOString()

function toSummary(row: engine.LoggedDelivery): DeliverySummaryShape {
  return {
    _id: row.id,
    uuid: row.uuid,
    webhook: row.webhook_id,
    event: row.event as EventName,
    file: row.file_id,
    status: row.status as DeliveryStatus,
    test: row.is_test === 1,
    attemptCount: row.attempts,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    lastStatusCode: row.last_status_code,
    lastErrorCode: row.last_error_code as AttemptErrorCode | null,
    created: iso(row.created_at),
    updated: iso(row.updated_at),
    completed: row.completed_at === null ? null : iso(row.completed_at),
  }
}

function toAttempt(row: engine.AttemptRecord): AttemptShape {
  return {
    attempt: row.attempt,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.started_at + row.duration_ms),
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    errorCode: row.error_code as AttemptErrorCode | null,
    errorMessage: row.error_message,
    responseExcerpt: row.response_excerpt,
  }
}

async function ownedWebhook(db: Executor, owner: Owner, id: string): Promise<repo.WebhookRow> {
  const row = isId(id) ? await repo.findOwnedWebhook(db, owner.accountId, id) : undefined
  if (!row) throw new AppError('NOT_FOUND', 'No such webhook.')
  return row
}

async function loggedDelivery(db: Executor, webhookId: string, deliveryId: string) {
  const row = isId(deliveryId) ? await engine.findLoggedDelivery(db, webhookId, deliveryId) : undefined
  if (!row) throw new AppError('NOT_FOUND', 'No such delivery of this webhook.')
  return row
}

export interface ListOptions {
  status?: DeliveryStatus
  cursor?: string
  limit?: number
}

export async function listDeliveries(
  ctx: AppContext,
  owner: Owner,
  webhookId: string,
  options: ListOptions,
): Promise<{ deliveries: DeliverySummaryShape[]; nextCursor: string | null }> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AppError(
      'VALIDATION_FAILED',
      `querystring/limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`,
    )
  }
  const before = pageStart(idCursor, options.cursor)
  const hook = await ownedWebhook(ctx.db.kysely, owner, webhookId)
  // One row more than asked tells whether another page exists without a count.
  const rows = await engine.listDeliveries(ctx.db.kysely, hook.id, {
    status: options.status,
    before,
    limit: limit + 1,
  })
  const page = pageOfRows(rows, limit, idCursor, (row) => row.id)
  return { deliveries: page.rows.map(toSummary), nextCursor: page.nextCursor }
}

export async function getDelivery(
  ctx: AppContext,
  owner: Owner,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryDetailShape> {
  const db = ctx.db.kysely
  const hook = await ownedWebhook(db, owner, webhookId)
  const row = await loggedDelivery(db, hook.id, deliveryId)
  const attempts = await engine.listAttempts(db, row.id)
  return {
    ...toSummary(row),
    payload: {
      file: row.file_id,
      event: row.event as EventName,
      data: JSON.parse(row.data) as unknown,
      owner: row.owner_email,
      runTimestamp: row.run_timestamp,
      uuid: row.uuid,
    },
    attempts: attempts.map(toAttempt),
  }
}

/** Makes one delivery due now (failed and succeeded ones included), unless an attempt is in flight. */
export async function retryDelivery(
  ctx: AppContext,
  owner: Owner,
  webhookId: string,
  deliveryId: string,
): Promise<DeliverySummaryShape> {
  const { db } = ctx
  const row = await db.kysely.transaction().execute(async (tx) => {
    // The registration lock orders this against a concurrent disable of the webhook.
    await lockResource(db, tx, `tessera.webhooks.${owner.accountId}`)
    const hook = await ownedWebhook(tx, owner, webhookId)
    const delivery = await loggedDelivery(tx, hook.id, deliveryId)
    // Test deliveries are probes and go out even to a disabled webhook; events wait for it.
    if (hook.disabled === 1 && delivery.is_test === 0) {
      throw new AppError(
        'WEBHOOK_DISABLED',
        'The webhook is disabled; enable it (PATCH disabled: false) or use POST /webhook/:id/recover.',
      )
    }
    const now = Date.now()
    if (!(await engine.requeueDelivery(tx, hook.id, delivery.id, now))) {
      throw new AppError('DELIVERY_IN_PROGRESS', 'An attempt of this delivery is in flight; retry after it.')
    }
    await engine.wakeWorkers(db, tx)
    return loggedDelivery(tx, hook.id, delivery.id)
  })
  return toSummary(row)
}

/** Parses `since` (ISO 8601 or Unix milliseconds, also as a digit string). */
function parseSince(since: string | number): number {
  const value = typeof since === 'number' || /^\d+$/.test(since) ? Number(since) : Date.parse(since)
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new AppError('VALIDATION_FAILED', 'since must be an ISO 8601 date-time or Unix milliseconds.')
  }
  return value
}

/**
 * Re-queues the webhook's failed and paused deliveries of events since `since`. Recovering says
 * "the receiver works again": a disabled webhook is enabled, as PATCH disabled: false would.
 */
export async function recoverDeliveries(
  ctx: AppContext,
  owner: Owner,
  webhookId: string,
  since: string | number,
): Promise<{ recovered: number; reenabled: boolean }> {
  const from = parseSince(since)
  const { db } = ctx
  return db.kysely.transaction().execute(async (tx) => {
    await lockResource(db, tx, `tessera.webhooks.${owner.accountId}`)
    const hook = await ownedWebhook(tx, owner, webhookId)
    const now = Date.now()
    const reenabled = hook.disabled === 1
    if (reenabled) {
      await repo.updateWebhook(tx, hook.id, { disabled: 0, disabled_reason: null, failing_since: null }, now)
    }
    const recovered = await engine.recoverDeliveries(tx, hook.id, from, now)
    // Paused deliveries older than `since` go out too once the webhook is enabled again.
    if (reenabled) await engine.releasePausedDeliveries(tx, hook.id, now)
    if (recovered > 0 || reenabled) await engine.wakeWorkers(db, tx)
    return { recovered, reenabled }
  })
}

/**
 * Queues a sample event of the webhook's kind for this webhook only, through the normal delivery
 * machinery and log; the worker adds `x-service-test: 1`.
 */
/**
 * The sample event of a test (a webhook's test delivery, a stream's test event): the contract's
 * sample `data` of `event`, about a made-up file id that names no file.
 */
export function testSample(
  ctx: Pick<AppContext, 'blobs'>,
  email: string,
  event: EventName,
  now: number,
): { fileId: string; data: unknown } {
  const fileId = newId(now)
  const bucket = publicBucketName(ctx.blobs.bucket)
  return { fileId, data: sampleData(event, { email, fileId, newId: () => newId(now), now, bucket }) }
}

export async function sendTestEvent(
  ctx: AppContext,
  owner: Owner,
  webhookId: string,
): Promise<DeliverySummaryShape> {
  const { db } = ctx
  const row = await db.kysely.transaction().execute(async (tx) => {
    const hook = await ownedWebhook(tx, owner, webhookId)
    const now = Date.now()
    const event = hook.event as EventName
    const { fileId, data } = testSample(ctx, owner.email, event, now)
    const deliveryId = await engine.emitTestDelivery(db, tx, {
      webhookId: hook.id,
      event,
      ownerEmail: owner.email,
      fileId,
      data,
      now,
    })
    return loggedDelivery(tx, hook.id, deliveryId)
  })
  return toSummary(row)
}
