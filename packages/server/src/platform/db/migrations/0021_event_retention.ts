import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// The event log's retention (events/retention.ts): pruning goes from a file's events to their
// deliveries, so both keys get an index. PostgreSQL has had both since 0002; SQLite lost them when
// 0010 and 0020 rebuilt the tables (`if not exists` makes this a no-op where they stand).
// `deleted_files` remembers a deleted file until its events are gone: the files row is deleted at
// once, and scanning every event for a file that no longer exists would not be bounded.
export const migration: Migration = {
  async up(db: AnyDb) {
    await sql`create index if not exists events_file_idx on events (file_id)`.execute(db)
    await sql`create index if not exists deliveries_event_idx on deliveries (event_id)`.execute(db)
    await db.schema
      .createTable('deleted_files')
      .addColumn('file_id', 'text', (c) => c.primaryKey())
      .addColumn('deleted_at', 'bigint', (c) => c.notNull())
      .execute()
  },
}
