import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// Where a file's records came from in BCF (modules/bcf): the topic, viewpoint and comment GUIDs an
// import read, and the author the BCF named, so that exporting the file again writes the same GUIDs
// and authors (a round trip keeps them, and a re-import recognises what it already holds). Exactly
// one of the three record columns is set; each cascades with its record, and every row with its
// file, so a deletion leaves no row behind.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('bcf_origins')
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('guid', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('topic', 'viewpoint', 'comment')`))
      .addColumn('annotation_id', 'text', (c) => c.references('annotations.id').onDelete('cascade'))
      .addColumn('configuration_id', 'text', (c) => c.references('configurations.id').onDelete('cascade'))
      .addColumn('reply_id', 'text', (c) => c.references('annotation_replies.id').onDelete('cascade'))
      .addColumn('author', 'text')
      .addPrimaryKeyConstraint('bcf_origins_pk', ['file_id', 'guid'])
      .execute()
    for (const column of ['annotation_id', 'configuration_id', 'reply_id'] as const) {
      await db.schema.createIndex(`bcf_origins_${column}_idx`).on('bcf_origins').column(column).execute()
    }
  },
}
