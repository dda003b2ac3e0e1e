// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // The process registry (platform/workers.ts): every worker that leases jobs says where it runs
    // and keeps a heartbeat, so a restarted process can tell a dead worker's leases from a live
    // one's and take them back at once instead of waiting for the lease to run out.
    await db.schema
      .createTable('workers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
      .execute()
  },
}
