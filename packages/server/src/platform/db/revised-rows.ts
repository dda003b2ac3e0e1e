// Writes shared by the tables of revised rows (an `id` and a `version` counter): the update that
// applies only at the revision read (optimistic locking), and the delete by id.
import type { Updateable } from 'kysely'
import type { Executor } from './index.ts'
import type { Database } from './schema.ts'

export type RevisedTable = {
  [T in keyof Database]: Database[T] extends { id: string; version: number } ? T : never
}[keyof Database]

/** Applies the changes if the row is still at `version`; false when it moved on meanwhile. */
export async function updateRowAt<T extends RevisedTable>(
  db: Executor,
  table: T,
  id: string,
  version: number,
  changes: Updateable<Database[T]>,
): Promise<boolean> {
  const result = await db
    .updateTable(table as RevisedTable)
    .set({ ...changes, version: version + 1 })
    .where('id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deleteRow(db: Executor, table: RevisedTable, id: string): Promise<void> {
  await db.deleteFrom(table).where('id', '=', id).execute()
}
