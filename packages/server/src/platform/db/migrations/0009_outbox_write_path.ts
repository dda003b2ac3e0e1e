// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // No query reads through these: deliveries join events by the events' primary key, and
    // events are never deleted (a pruning job would delete deliveries first, then events). Each
    // cost every emit a B-tree page in the commit and in the checkpoint; on SQLite an emit's
    // statements and commit went from ~100 to ~70 µs without them.
    await db.schema.dropIndex('events_file_idx').execute()
    await db.schema.dropIndex('deliveries_event_idx').execute()
  },
}
