// The transactional event outbox. emitEvent runs inside the caller's transaction: the event row and
// one delivery per subscribed webhook commit (or roll back) together with the change itself.
import { randomUUID } from 'node:crypto'
import type { Config } from '../../platform/config.ts'
import type { Db, Executor, Tx } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import { WakeChannel } from '../../platform/jobs.ts'
import type { EventName } from './events.ts'
import * as repo from './repository.ts'

/** Wakes delivery workers (on PostgreSQL by NOTIFY, delivered at commit only). */
export const deliveryChannel = new WakeChannel('tessera_webhook_deliveries')

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

export async function emitEvent(
  ctx: { db: Db; config: Pick<Config, 'webhookRetryScheduleMs'> },
  tx: Tx,
  input: EmitInput,
): Promise<Emitted> {
  const now = Date.now()
  const eventId = newId(now)
  await repo.insertEvent(tx, {
    id: eventId,
    event: input.event,
    file_id: input.fileId,
    data: JSON.stringify(input.data ?? {}),
    run_timestamp: input.runTimestamp ?? now,
    created_at: now,
  })
  // Who may read the file decides who hears about it; nobody else's webhooks see the event.
  const readers = [...new Set([input.fileOwnerId, ...(input.readerAccountIds ?? [])])]
  const subscribers = await repo.subscribersOf(tx, input.event, readers)
  if (subscribers.length === 0) return { eventId, deliveries: 0 }
  const firstDelay = ctx.config.webhookRetryScheduleMs[0] ?? 0
  const rows: repo.DeliveryRow[] = subscribers.map((hook) => ({
    id: newId(now),
    uuid: randomUUID(),
    event_id: eventId,
    webhook_id: hook.id,
    owner_email: hook.owner_email,
    status: hook.disabled === 1 ? 'paused' : 'pending',
    attempts: 0,
    next_attempt_at: now + firstDelay,
    lease_expires_at: null,
    leased_by: null,
    last_status_code: null,
    last_error_code: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
    is_test: 0,
  }))
  await repo.insertDeliveries(tx, rows)
  if (rows.some((row) => row.status === 'pending')) await wakeWorkers(ctx.db, tx)
  return { eventId, deliveries: rows.length }
}

/** Tells delivery workers that deliveries became due (see WakeChannel.wake). */
export function wakeWorkers(db: Db, executor: Executor): Promise<void> {
  return deliveryChannel.wake(db, executor)
}
