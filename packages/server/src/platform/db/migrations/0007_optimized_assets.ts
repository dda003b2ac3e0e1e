// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // The conversion's output: the optimized GLB's blob (null until a conversion succeeded) with
    // its size and sha256 (the download's ETag). One key per conversion, so a new one never
    // overwrites a blob a reader may be streaming.
    await db.schema.alterTable('files').addColumn('optimized_key', 'text').execute()
    await db.schema
      .alterTable('files')
      .addColumn('optimized_size', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema
      .alterTable('files')
      .addColumn('optimized_sha256', 'text', (c) => c.notNull().defaultTo(''))
      .execute()
    // Claims look for due queued jobs and for running jobs whose lease ran out (a crashed worker).
    await db.schema.createIndex('jobs_lease_idx').on('jobs').columns(['state', 'lease_until']).execute()
  },
}
