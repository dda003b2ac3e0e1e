// The deliveries' life outside the hot path, through Kysely's builder: releasing and pausing leases,
// the operations of the delivery log (pause, release, re-queue, recover), its reads, and the backlog
// the metrics show. Tables: `deliveries` (its life after the outbox inserted it) and
// `delivery_attempts` belong to the delivery engine; the webhooks module reaches them through
// delivery/index.ts only.
import type { Selectable } from 'kysely'
import type { Executor } from '../platform/db/index.ts'
import type { DeliveriesTable, DeliveryAttemptsTable } from './tables.ts'

type DeliveryRow = Selectable<DeliveriesTable>
export type AttemptRecord = Selectable<DeliveryAttemptsTable>

// ---- the worker's leases -----------------------------------------------------------------------

/** A stopping worker hands its leased deliveries back: due again for whoever claims next. */
export async function releaseLeases(db: Executor, workerId: string, now: number): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ status: 'pending', lease_expires_at: null, leased_by: null, updated_at: now })
    .where('leased_by', '=', workerId)
    .where('status', '=', 'delivering')
    .execute()
}

/** A delivery claimed for a disabled webhook waits as `paused` instead of being sent. */
export async function pauseLeasedDelivery(
  db: Executor,
  id: string,
  workerId: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('deliveries')
    .set({ status: 'paused', leased_by: null, lease_expires_at: null, updated_at: now })
    .where('id', '=', id)
    .where('leased_by', '=', workerId)
    .execute()
}

// ---- operations --------------------------------------------------------------------------------

/** A disabled webhook's queued deliveries wait as `paused` (re-queued by recover/retry). */
export function pauseQueuedDeliveries(db: Executor, webhookId: string, now: number): Promise<unknown> {
  return db
    .updateTable('deliveries')
    .set({ status: 'paused', updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute()
}

/**
 * Makes one delivery due now, whatever its state, unless an attempt holds a live lease on it.
 * Answers whether it was re-queued.
 */
export async function requeueDelivery(
  db: Executor,
  webhookId: string,
  deliveryId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('deliveries')
    .set({
      status: 'pending',
      next_attempt_at: now,
      leased_by: null,
      lease_expires_at: null,
      completed_at: null,
      updated_at: now,
    })
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .where((eb) => eb.not(eb.and([eb('status', '=', 'delivering'), eb('lease_expires_at', '>', now)])))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Re-queues a webhook's failed and paused event deliveries created at or after `since`. */
export async function recoverDeliveries(
  db: Executor,
  webhookId: string,
  since: number,
  now: number,
): Promise<number> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'pending', next_attempt_at: now, completed_at: null, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', 'in', ['failed', 'paused'])
    .where('created_at', '>=', since)
    .where('is_test', '=', 0)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** A re-enabled webhook's paused deliveries become due again (their retry count is kept). */
export async function releasePausedDeliveries(db: Executor, webhookId: string, now: number): Promise<number> {
  const result = await db
    .updateTable('deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'paused')
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * Deliveries due now and not in flight (pending and due, or holding an expired lease), and when
 * the longest-waiting of them became due.
 */
export async function dueBacklog(
  db: Executor,
  now: number,
): Promise<{ count: number; oldestDueAt: number | null }> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('n'),
      eb.fn
        .min(
          eb
            .case()
            .when('status', '=', 'pending')
            .then(eb.ref('next_attempt_at'))
            .else(eb.ref('lease_expires_at'))
            .end(),
        )
        .as('oldest'),
    ])
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'pending'), eb('next_attempt_at', '<=', now)]),
        eb.and([eb('status', '=', 'delivering'), eb('lease_expires_at', '<=', now)]),
      ]),
    )
    .executeTakeFirstOrThrow()
  const oldest = row.oldest === null || row.oldest === undefined ? null : Number(row.oldest)
  return { count: Number(row.n), oldestDueAt: oldest }
}

// ---- the delivery log --------------------------------------------------------------------------

export function listAttempts(db: Executor, deliveryId: string): Promise<AttemptRecord[]> {
  return db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute()
}

/** A delivery with the event it carries, as the delivery log shows it. */
export type LoggedDelivery = DeliveryRow & {
  event: string
  file_id: string
  data: string
  run_timestamp: number
}

function loggedDeliveries(db: Executor) {
  return db
    .selectFrom('deliveries')
    .innerJoin('events', 'events.id', 'deliveries.event_id')
    .selectAll('deliveries')
    .select(['events.event', 'events.file_id', 'events.data', 'events.run_timestamp'])
}

export interface DeliveryPage {
  status?: string
  /** Only deliveries with a smaller (older) id than this one. */
  before?: string
  limit: number
}

/** One page of a webhook's delivery log, newest first. */
export function listDeliveries(
  db: Executor,
  webhookId: string,
  page: DeliveryPage,
): Promise<LoggedDelivery[]> {
  let query = loggedDeliveries(db).where('deliveries.webhook_id', '=', webhookId)
  if (page.status !== undefined) query = query.where('deliveries.status', '=', page.status)
  if (page.before !== undefined) query = query.where('deliveries.id', '<', page.before)
  return query.orderBy('deliveries.id', 'desc').limit(page.limit).execute()
}

export function findLoggedDelivery(
  db: Executor,
  webhookId: string,
  deliveryId: string,
): Promise<LoggedDelivery | undefined> {
  return loggedDeliveries(db)
    .where('deliveries.id', '=', deliveryId)
    .where('deliveries.webhook_id', '=', webhookId)
    .executeTakeFirst()
}
