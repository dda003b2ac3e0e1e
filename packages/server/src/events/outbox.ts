// The transactional event outbox. emitEvent runs inside the caller's transaction: the event row, its
// rows in the live stream's log and whatever the subscribers add (subscribers.ts: the delivery
// engine's deliveries) commit, or roll back, together with the change itself.
import type { EventName } from '../contract/index.ts'
import type { Db, Tx } from '../platform/db/index.ts'
import { newId } from '../platform/ids.ts'
import { outboxStore } from './outbox-store.ts'
import { type StreamHub, streamUuid } from './stream-log.ts'
import { type EmitContext, type EmittedEvent, hooksFor } from './subscribers.ts'

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
  /** Rows the subscribers queued for the event: the delivery engine's deliveries (paused ones included). */
  deliveries: number
}

export async function emitEvent(ctx: EmitContext, tx: Tx, input: EmitInput): Promise<Emitted> {
  const { db } = ctx
  const hooks = hooksFor(db)
  // Without the delivery engine's fan-out, an event would commit without its deliveries, which no
  // later step can make good: a process that emits registers it at composition (createContext).
  if (hooks.length === 0) throw new Error('emitEvent: no outbox subscriber is registered (onEmit)')
  const now = Date.now()
  const event: EmittedEvent = {
    id: newId(now),
    event: input.event,
    fileId: input.fileId,
    data: JSON.stringify(input.data ?? {}),
    runTimestamp: input.runTimestamp ?? now,
    createdAt: now,
    readers: [...new Set([input.fileOwnerId, ...(input.readerAccountIds ?? [])])],
  }
  const store = outboxStore(db)
  const { streamed, answer } = await store.writeEvent(ctx, tx, event, hooks)
  let queued = 0
  for (const hook of hooks) queued += await hook.afterEvent(ctx, tx, event, answer)
  if (streamed && store.wakesHubAtCommit) wakeHubAtCommit(ctx)
  return { eventId: event.id, deliveries: queued }
}

/**
 * Streams read committed rows only: this process's hub looks once the transaction ended (it
 * coalesces). Where the store does not (PostgreSQL), its statement's NOTIFY wakes every hub.
 */
function wakeHubAtCommit(ctx: Pick<EmitContext, 'db' | 'eventStream'>): void {
  const { db } = ctx
  const hub = ctx.eventStream
  if (hub?.db !== db) return
  db.whenTransactionEnds?.((committed) => {
    if (committed) hub.wake()
  })
}

/** A sample event of one webhook's test delivery: the event row alone (delivery/test-delivery.ts). */
export async function writeSampleEvent(
  db: Db,
  tx: Tx,
  sample: { event: EventName; fileId: string; data: unknown; now: number },
): Promise<string> {
  const id = newId(sample.now)
  const data = JSON.stringify(sample.data)
  const { event, fileId, now } = sample
  await outboxStore(db).writeEventRow(tx, { id, event, fileId, data, runTimestamp: now, createdAt: now })
  return id
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
 * that account receive it): no other reader, no subscriber. Answers the event's id and the
 * envelope `uuid` its streams carry.
 */
export async function emitStreamTestEvent(
  ctx: Pick<EmitContext, 'db' | 'eventStream'>,
  tx: Tx,
  test: StreamTestEvent,
): Promise<{ eventId: string; uuid: string }> {
  const event: EmittedEvent = {
    id: newId(test.now),
    event: test.event,
    fileId: test.fileId,
    data: JSON.stringify(test.data ?? {}),
    runTimestamp: test.now,
    createdAt: test.now,
    readers: [test.readerId],
  }
  const store = outboxStore(ctx.db)
  const config = { webhookRetryScheduleMs: [] }
  const { streamed } = await store.writeEvent({ ...ctx, config }, tx, event, [])
  if (streamed && store.wakesHubAtCommit) wakeHubAtCommit(ctx)
  return { eventId: event.id, uuid: streamUuid(event.id, test.readerId) }
}

/** What a context offers the outbox besides the database: the process's live stream hub. */
export interface EventPorts {
  eventStream: StreamHub
}
