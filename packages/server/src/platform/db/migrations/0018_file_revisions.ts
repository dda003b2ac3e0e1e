// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // The earlier revisions of a file (the current one stays in `files`): one row per replaced
    // revision, written by the upload that replaced it, whose original blob stays in the store.
    // No foreign key to `files`: a row outlives its file while its blob is being removed
    // (`pruned_at` set), so that a crash in between leaves a row to finish the removal from.
    await db.schema
      .createTable('file_revisions')
      .addColumn('file_id', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('blob_key', 'text', (c) => c.notNull())
      .addColumn('uploaded_by', 'text', (c) => c.notNull())
      .addColumn('revision_date', 'bigint', (c) => c.notNull())
      .addColumn('pruned_at', 'bigint')
      .addPrimaryKeyConstraint('file_revisions_pk', ['file_id', 'version'])
      .execute()
    await db.schema
      .createIndex('file_revisions_pruned_idx')
      .on('file_revisions')
      .columns(['pruned_at'])
      .execute()
  },
}
