import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// Share by link (modules/links): at most one link per file. The token is kept only as its SHA-256
// (`token_hash`), the password only as its argon2id hash. A row is never updated: rotating replaces
// it with a new row (a new id), revoking deletes it, deleting the file deletes it by the foreign
// key's cascade; so every update or delete of a row is the end of that link, which the row-change
// feed (platform/db/row-changes.ts) reports by `id` — on PostgreSQL through the NOTIFY trigger of
// migration 0016's function, added to this table here.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('file_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('file_id', 'text', (c) => c.notNull().unique().references('files.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text')
      .addColumn('expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .execute()
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    await sql`
      create trigger file_links_notify_change after update or delete on file_links
      for each row execute function tessera_notify_auth_row()`.execute(db)
  },
}
