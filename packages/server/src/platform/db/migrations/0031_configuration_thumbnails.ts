import { type Migration, PostgresAdapter } from 'kysely'
import type { AnyDb } from './index.ts'

// The thumbnail of a saved view (modules/configurations/thumbnails.ts): a small PNG or WebP the
// console renders of the view, at most one per configuration, kept beside the record (the record's
// shape is the spec's and has no field for it). The bytes live in the row: a thumbnail is bounded
// (64 KiB), a database backup carries it without a blob reference, and deleting the
// configuration — or its file, whose deletion cascades to its configurations — deletes it by the
// foreign key. The one column type beyond text/integer/bigint: binary, `bytea` on PostgreSQL and
// `blob` on SQLite (both read back as a Node Buffer).
export const migration: Migration = {
  async up(db: AnyDb) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter
    await db.schema
      .createTable('configuration_thumbnails')
      .addColumn('configuration_id', 'text', (c) =>
        c.primaryKey().references('configurations.id').onDelete('cascade'),
      )
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('width', 'integer', (c) => c.notNull())
      .addColumn('height', 'integer', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('bytes', postgres ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_by', 'text', (c) => c.notNull())
      .execute()
  },
}
