// The transactional event outbox. emitEvent runs inside the caller's transaction: the event row and
// one delivery per subscribed webhook commit (or roll back) together with the change itself.
import { randomUUID } from 'node:crypto'
import type { EventName } from '../contract/index.ts'
import type { Config } from '../platform/config.ts'
import type { Db, Tx } from '../platform/db/index.ts'
import { newId } from '../platform/ids.ts'
import type { Waker } from '../platform/jobs.ts'
import type { DeliveryHandOff, HandOffPort, Job } from './hand-off.ts'
import * as store from './store.ts'
import { streamUuid } from './stream-log.ts'
import { wakeWorkers } from './wake.ts'

export interface EmitInput {
  event: EventName
  /** The file the event concerns (envelope `file`). */
  fileId: string
  /** The file's owner, who may always read it. */
  fileOwnerId: string
  /** Other accounts that may read the file (shares); their webhooks receive the event too. */
  readerAccountIds?: readonly string[]
  /** Event-specific content (envelope `data`), exactly the spec's shape. */
  data: unknown
  /** Trigger time in ms (envelope `runTimestamp`); default now. */
  runTimestamp?: number
}

export interface Emitted {
  eventId: string
  /** Deliveries queued (paused ones included). */
  deliveries: number
}

/** What emitEvent needs of the caller's context; an AppContext of app.ts carries the port too. */
export interface EmitContext {
  db: Db
  config: Pick<Config, 'webhookRetryScheduleMs'>
  /** Where an in-process worker takes new deliveries at commit (hand-off.ts); absent: none does. */
  deliveryHandOff?: HandOffPort
  /** This process's live stream hub (stream-hub.ts), woken at commit on SQLite; absent: none. */
  eventStream?: Waker
}

export async function emitEvent(ctx: EmitContext, tx: Tx, input: EmitInput): Promise<Emitted> {
  const now = Date.now()
  const event: store.EventRow = {
    id: newId(now),
    event: input.event,
    fileId: input.fileId,
    data: JSON.stringify(input.data ?? {}),
    runTimestamp: input.runTimestamp ?? now,
    createdAt: now,
  }
  const readers = [...new Set([input.fileOwnerId, ...(input.readerAccountIds ?? [])])]
  const dueAt = now + (ctx.config.webhookRetryScheduleMs[0] ?? 0)
  const deliveries = store.writesRowByRow(ctx.db)
    ? await emitRowByRow(ctx, tx, event, readers, dueAt)
    : await store.insertEventWithDeliveries(ctx.db, tx, event, readers, dueAt)
  return { eventId: event.id, deliveries }
}

/** The job a hand-off sends, from the rows just written. */
function handedJob(
  id: string,
  uuid: string,
  hook: store.Subscriber,
  event: store.EventRow,
  dueAt: number,
): Job {
  return {
    id,
    uuid,
    attempts: 0,
    owner_email: hook.email,
    webhook_id: hook.id,
    next_attempt_at: dueAt,
    url: hook.url,
    secret: hook.secret,
    service_token: hook.service_token,
    previous_secret: hook.previous_secret,
    previous_secret_expires_at: hook.previous_secret_expires_at,
    webhook_disabled: 0,
    is_test: 0,
    event_created_at: event.createdAt,
    file_id: event.fileId,
    event: event.event,
    data: event.data,
    run_timestamp: event.runTimestamp,
  }
}

async function emitRowByRow(
  ctx: EmitContext,
  tx: Tx,
  event: store.EventRow,
  readers: string[],
  dueAt: number,
) {
  const { db } = ctx
  const now = event.createdAt
  await store.insertEvent(db, tx, event)
  const streamed = await store.insertStreamRows(db, tx, event.id, readers)
  const subscribers = await store.subscribersOf(db, tx, event.event, readers, now)
  const handOff: DeliveryHandOff | null = ctx.deliveryHandOff?.takerFor(db) ?? null
  const handed: Job[] = []
  let pending = 0
  for (const hook of subscribers) {
    const id = newId(now)
    const uuid = randomUUID()
    let status = hook.disabled === 1 ? 'paused' : 'pending'
    let lease: [string | null, number | null] = [null, null]
    if (status === 'pending' && hook.queued === 0 && handOff?.canTake(hook.id, hook.leases)) {
      status = 'delivering'
      lease = [handOff.id, now + handOff.leaseMs]
      handOff.reserve()
      handed.push(handedJob(id, uuid, hook, event, dueAt))
    } else if (status === 'pending') pending += 1
    const delivery = { id, uuid, eventId: event.id, webhookId: hook.id, ownerEmail: hook.email, status }
    await store.insertDelivery(db, tx, { ...delivery, dueAt, createdAt: now, lease })
  }
  if (handOff && handed.length > 0) {
    const whenEnds = db.whenTransactionEnds
    if (!whenEnds) throw new Error('a hand-off needs Db.whenTransactionEnds')
    whenEnds((committed) => handOff.settle(handed, committed))
  }
  const hub = ctx.eventStream
  // Streams read committed rows only: the hub looks once the transaction ended (it coalesces).
  if (streamed > 0 && hub?.db === db) {
    db.whenTransactionEnds?.((committed) => {
      if (committed) hub.wake()
    })
  }
  // The worker's claim queues behind this transaction (one connection), so it sees the outcome.
  if (pending > 0) await wakeWorkers(db, tx)
  return subscribers.length
}

export interface TestDelivery {
  webhookId: string
  event: EventName
  ownerEmail: string
  /** The sample file the event concerns. */
  fileId: string
  data: unknown
  now: number
}

/**
 * Queues a test delivery of a sample event to one webhook, through the normal delivery machinery
 * and log (the worker adds `x-service-test: 1`); answers the delivery's id.
 */
export async function emitTestDelivery(db: Db, tx: Tx, test: TestDelivery): Promise<string> {
  const { now } = test
  const eventId = newId(now)
  const deliveryId = newId(now)
  await store.insertTestDelivery(
    tx,
    {
      id: eventId,
      event: test.event,
      file_id: test.fileId,
      data: JSON.stringify(test.data),
      run_timestamp: now,
      created_at: now,
    },
    {
      id: deliveryId,
      uuid: randomUUID(),
      event_id: eventId,
      webhook_id: test.webhookId,
      owner_email: test.ownerEmail,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_expires_at: null,
      leased_by: null,
      last_status_code: null,
      last_error_code: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
      is_test: 1,
    },
  )
  await wakeWorkers(db, tx)
  return deliveryId
}

export interface StreamTestEvent {
  event: EventName
  /** The one account whose streams receive it: the caller. */
  readerId: string
  /** The sample file the event concerns. */
  fileId: string
  data: unknown
  now: number
}

/**
 * Writes a sample event into one account's live event stream only (every process's open streams of
 * that account receive it): no other reader, no webhook delivery. Answers the event's id and the
 * envelope `uuid` its streams carry.
 */
export async function emitStreamTestEvent(
  ctx: Pick<EmitContext, 'db' | 'eventStream'>,
  tx: Tx,
  test: StreamTestEvent,
): Promise<{ eventId: string; uuid: string }> {
  const { db } = ctx
  const event: store.EventRow = {
    id: newId(test.now),
    event: test.event,
    fileId: test.fileId,
    data: JSON.stringify(test.data ?? {}),
    runTimestamp: test.now,
    createdAt: test.now,
  }
  const streamed = await store.insertStreamTestEvent(db, tx, event, test.readerId)
  const hub = ctx.eventStream
  // As emitEvent: on SQLite this process's hub looks once the transaction ended; on PostgreSQL the
  // statement's NOTIFY wakes every hub at commit.
  if (streamed && store.writesRowByRow(db) && hub?.db === db) {
    db.whenTransactionEnds?.((committed) => {
      if (committed) hub.wake()
    })
  }
  return { eventId: event.id, uuid: streamUuid(event.id, test.readerId) }
}
