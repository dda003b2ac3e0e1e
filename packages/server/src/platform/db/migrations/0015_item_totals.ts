// Shipped: never edit (see index.ts).
import { type Migration, type RawBuilder, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// The text columns whose UTF-8 bytes count toward an item's size (ids and numbers do not): the same
// lists as bytesOf in modules/annotations/repository.ts and modules/configurations/repository.ts.
const ANNOTATION_COLUMNS = [
  'name',
  'content',
  'color',
  'targets',
  'tags',
  'read_permissions',
  'write_permissions',
  'permissions',
]
const CONFIGURATION_COLUMNS = ['name', 'locked_by', 'read_permissions', 'write_permissions', 'settings']

export const migration: Migration = {
  async up(db: AnyDb) {
    // Running totals of each file's annotations and configurations (`kind` is the item's noun),
    // kept by every create, update and delete in its transaction under the file's lock: the per-file
    // caps are then checked in O(1) instead of summing up to 64 MiB of rows per write.
    await db.schema
      .createTable('file_item_totals')
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('items', 'bigint', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_item_totals_pk', ['file_id', 'kind'])
      .execute()
    const postgres = await isPostgres(db)
    const bytes = (columns: string[]) => {
      const parts = columns.map((column) =>
        postgres
          ? sql`coalesce(octet_length(${sql.ref(column)}), 0)`
          : sql`coalesce(length(cast(${sql.ref(column)} as blob)), 0)`,
      )
      return sql.join(parts, sql` + `) as RawBuilder<number>
    }
    for (const [table, kind, columns] of [
      ['annotations', 'annotation', ANNOTATION_COLUMNS],
      ['configurations', 'configuration', CONFIGURATION_COLUMNS],
    ] as const) {
      await sql`insert into file_item_totals (file_id, kind, items, bytes)
        select file_id, ${kind}, count(*), sum(${bytes([...columns])}) from ${sql.table(table)}
        group by file_id`.execute(db)
    }
  },
}

async function isPostgres(db: AnyDb): Promise<boolean> {
  try {
    await sql`select current_schema()`.execute(db)
    return true
  } catch {
    return false
  }
}
