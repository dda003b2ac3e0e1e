// SQL of the webhooks module: registrations, the event outbox, deliveries and their attempts. The
// delivery engine's hot path (outbox.ts, claim.ts, record.ts) runs plain-text statements instead;
// see statements.ts.
import type { Selectable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type {
  DeliveriesTable,
  DeliveryAttemptsTable,
  EventsTable,
  WebhooksTable,
} from '../../platform/db/schema.ts'

export type WebhookRow = Selectable<WebhooksTable>
export type DeliveryRow = Selectable<DeliveriesTable>

export function insertWebhook(db: Executor, row: WebhookRow): Promise<unknown> {
  return db.insertInto('webhooks').values(row).execute()
}

export function findOwnedWebhook(db: Executor, ownerId: string, id: string): Promise<WebhookRow | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', id)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst()
}

export function listOwnedWebhooks(db: Executor, ownerId: string): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute()
}

export async function countOwnedWebhooks(db: Executor, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('owner_id', '=', ownerId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function findDuplicate(
  db: Executor,
  ownerId: string,
  event: string,
  url: string,
  exceptId?: string,
): Promise<boolean> {
  let query = db
    .selectFrom('webhooks')
    .select('id')
    .where('owner_id', '=', ownerId)
    .where('event', '=', event)
    .where('url', '=', url)
  if (exceptId) query = query.where('id', '!=', exceptId)
  return (await query.executeTakeFirst()) !== undefined
}

export async function updateWebhook(
  db: Executor,
  id: string,
  changes: Partial<Omit<WebhookRow, 'id' | 'owner_id' | 'created_at' | 'version'>>,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set((eb) => ({ ...changes, updated_at: now, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deleteWebhook(db: Executor, ownerId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('webhooks')
    .where('id', '=', id)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** A disabled webhook's queued deliveries wait as `paused` (re-queued by recover/retry). */
export function pauseQueuedDeliveries(db: Executor, webhookId: string, now: number): Promise<unknown> {
  return db
    .updateTable('deliveries')
    .set({ status: 'paused', updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute()
}

// ---- outbox ------------------------------------------------------------------------------------

export function insertEvent(db: Executor, row: Selectable<EventsTable>): Promise<unknown> {
  return db.insertInto('events').values(row).execute()
}

export async function insertDeliveries(db: Executor, rows: DeliveryRow[]): Promise<void> {
  // Stays well under SQLite's bound-parameter limit per statement.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('deliveries')
      .values(rows.slice(i, i + 500))
      .execute()
  }
}

// ---- delivery log ------------------------------------------------------------------------------

export function findDelivery(db: Executor, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst()
}

export function listAttempts(db: Executor, deliveryId: string): Promise<Selectable<DeliveryAttemptsTable>[]> {
  return db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute()
}

// ---- delivery log and operations ---------------------------------------------------------------

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
