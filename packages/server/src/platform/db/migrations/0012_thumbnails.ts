// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // The PNG thumbnail a conversion makes beside the optimized GLB (null until one did), with its
    // size and sha256 (the thumbnail route's ETag). One key per conversion, as for the GLB.
    await db.schema.alterTable('files').addColumn('thumbnail_key', 'text').execute()
    await db.schema
      .alterTable('files')
      .addColumn('thumbnail_size', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema
      .alterTable('files')
      .addColumn('thumbnail_sha256', 'text', (c) => c.notNull().defaultTo(''))
      .execute()
  },
}
