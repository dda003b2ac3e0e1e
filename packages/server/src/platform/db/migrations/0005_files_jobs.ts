// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // Background jobs (for now: 'convert', one per uploaded revision). Rows are written in the
    // same transaction as the change that needs them; workers claim due rows by (state, run_at)
    // and hold them with a lease.
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('file_version', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('run_at', 'bigint', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_until', 'bigint')
      .addColumn('leased_by', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['state', 'run_at']).execute()
    await db.schema.createIndex('jobs_file_idx').on('jobs').columns(['file_id']).execute()
  },
}
