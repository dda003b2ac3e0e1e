// Shipped: never edit (see index.ts).
import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// The revision number people see: 1 for a file's first upload, +1 for each later upload, and
// nothing else moves it (not `__v`, which shares move too, nor `files.revision`, the conversion's
// counter, which existing files started at their `__v` in 0021 and which in-flight jobs hold: it is
// left alone). Existing files are numbered 1..n in upload order (`version` grows with each upload)
// over the history rows there are; earlier revisions already removed (past
// TESSERA_FILE_REVISIONS_KEPT) left no trace, so such a file's numbers start after what was kept.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable('files')
      .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(1))
      .execute()
    await db.schema
      .alterTable('file_revisions')
      .addColumn('revision_number', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await sql`
      update file_revisions set revision_number = (
        select count(*) from file_revisions earlier
        where earlier.file_id = file_revisions.file_id and earlier.version <= file_revisions.version
      )`.execute(db)
    await sql`
      update files set revision_number = 1 + (
        select count(*) from file_revisions earlier
        where earlier.file_id = files.id and earlier.version < files.version
      )`.execute(db)
  },
}
