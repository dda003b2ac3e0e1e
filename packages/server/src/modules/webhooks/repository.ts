// SQL of the registrations: the `webhooks` table belongs to this module. The delivery engine reads
// it when it claims and sends, and writes only the health columns (failing_since, and disabled when
// it disables a failing webhook); deliveries and attempts are the engine's (delivery/index.ts).
import type { Selectable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type { WebhooksTable } from './tables.ts'

export type WebhookRow = Selectable<WebhooksTable>

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
