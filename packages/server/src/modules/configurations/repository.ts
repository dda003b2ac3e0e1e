// SQL of the configurations module, its table's only reader and writer: the rows the file-items skeleton
// works on (its ItemRows), updates and deletes through platform/db/revised-rows.ts.
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import { deleteRow, updateRowAt } from '../../platform/db/revised-rows.ts'
import type { ConfigurationsTable } from './tables.ts'

export type ConfigurationRow = Selectable<ConfigurationsTable> & {
  author_email: string
  last_modification_author_email: string | null
}

function selectConfigurations(db: Executor) {
  return db
    .selectFrom('configurations')
    .innerJoin('accounts as author', 'author.id', 'configurations.author_id')
    .leftJoin('accounts as modifier', 'modifier.id', 'configurations.last_modification_author_id')
    .selectAll('configurations')
    .select(['author.email as author_email', 'modifier.email as last_modification_author_email'])
}

export function find(db: Executor, id: string): Promise<ConfigurationRow | undefined> {
  return selectConfigurations(db).where('configurations.id', '=', id).executeTakeFirst()
}

/** Up to `limit` of a file's configurations, oldest first, after the one with ID `afterId` if given. */
export function listAfter(
  db: Executor,
  fileId: string,
  afterId: string | undefined,
  limit: number,
): Promise<ConfigurationRow[]> {
  let query = selectConfigurations(db).where('configurations.file_id', '=', fileId)
  if (afterId !== undefined) query = query.where('configurations.id', '>', afterId)
  return query.orderBy('configurations.id').limit(limit).execute()
}

// The text columns that count toward the per-file byte cap (the same list as migration 0015).
const BYTE_COLUMNS = ['name', 'locked_by', 'read_permissions', 'write_permissions', 'settings'] as const

/** UTF-8 bytes of the row's stored text and JSON. */
export function bytesOf(row: ConfigurationRow): number {
  let bytes = 0
  for (const column of BYTE_COLUMNS) bytes += Buffer.byteLength(row[column] ?? '')
  return bytes
}

export function insert(db: Executor, row: Insertable<ConfigurationsTable>): Promise<unknown> {
  return db.insertInto('configurations').values(row).execute()
}

/** Applies `changes` if the row is still at `version` (and counts it up); false when it moved on. */
export function updateAt(
  db: Executor,
  id: string,
  version: number,
  changes: Updateable<ConfigurationsTable>,
): Promise<boolean> {
  return updateRowAt(db, 'configurations', id, version, changes)
}

export function remove(db: Executor, id: string): Promise<void> {
  return deleteRow(db, 'configurations', id)
}
