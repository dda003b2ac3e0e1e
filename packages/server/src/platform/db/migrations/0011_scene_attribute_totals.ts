// Shipped: never edit (see index.ts).
import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // Running totals of each file's scene attributes, kept by every attribute write in its
    // transaction: the per-file caps are then checked in O(1) instead of summing up to 64 MiB of
    // values per write. Bytes are UTF-8 bytes of the name plus the JSON text of the value.
    await db.schema
      .createTable('scene_attribute_totals')
      .addColumn('file_id', 'text', (c) => c.primaryKey().references('files.id').onDelete('cascade'))
      .addColumn('attributes', 'bigint', (c) => c.notNull())
      .addColumn('bytes', 'bigint', (c) => c.notNull())
      .execute()
    const bytes = (await isPostgres(db))
      ? sql`octet_length(name) + octet_length(value)`
      : sql`length(cast(name as blob)) + length(cast(value as blob))`
    await sql`insert into scene_attribute_totals (file_id, attributes, bytes)
      select file_id, count(*), sum(${bytes}) from scene_attributes group by file_id`.execute(db)
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
