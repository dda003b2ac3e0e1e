import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// The event log's retention (events/retention.ts).
// - `deliveries_event_idx` again (migration 0009 dropped it for the emit's sake): deleting an event
//   makes both databases look for deliveries still referring to it (the foreign key), and without
//   an index that is a scan of every delivery for every event deleted. It costs each delivery
//   written one index entry: `npm run bench:emit -- --dialect sqlite --events 2000 --rounds 2`,
//   8.78 → 10.02 WAL frames per emit's commit (about 7 µs at ~6 µs a frame on the bench VM).
// - `deleted_files` remembers a deleted file until its events are gone: the files row is deleted at
//   once, and no index leads from a file to its events (0009 dropped that one too; a pass over the
//   events finds them, and only runs while a tombstone is due).
export const migration: Migration = {
  async up(db: AnyDb) {
    await sql`create index if not exists deliveries_event_idx on deliveries (event_id)`.execute(db)
    await db.schema
      .createTable('deleted_files')
      .addColumn('file_id', 'text', (c) => c.primaryKey())
      .addColumn('deleted_at', 'bigint', (c) => c.notNull())
      .execute()
  },
}
