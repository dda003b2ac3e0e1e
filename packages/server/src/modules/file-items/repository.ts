// SQL of the file-items module: the running totals of a file's items of each kind (file_item_totals,
// this module's table). The items themselves live in their kinds' tables, read and written through
// each kind's ItemRows (kind.ts).
import type { Executor } from '../../platform/db/index.ts'
import type { FileItemTotalsTable } from './tables.ts'

export type ItemTotals = Pick<FileItemTotalsTable, 'items' | 'bytes'>

export async function readItemTotals(db: Executor, fileId: string, kind: string): Promise<ItemTotals> {
  const row = await db
    .selectFrom('file_item_totals')
    .select(['items', 'bytes'])
    .where('file_id', '=', fileId)
    .where('kind', '=', kind)
    .executeTakeFirst()
  return { items: Number(row?.items ?? 0), bytes: Number(row?.bytes ?? 0) }
}

export async function addToItemTotals(
  db: Executor,
  fileId: string,
  kind: string,
  delta: ItemTotals,
): Promise<void> {
  if (delta.items === 0 && delta.bytes === 0) return
  await db
    .insertInto('file_item_totals')
    .values({ file_id: fileId, kind, items: delta.items, bytes: delta.bytes })
    .onConflict((oc) =>
      oc.columns(['file_id', 'kind']).doUpdateSet((eb) => ({
        items: eb('file_item_totals.items', '+', delta.items),
        bytes: eb('file_item_totals.bytes', '+', delta.bytes),
      })),
    )
    .execute()
}
