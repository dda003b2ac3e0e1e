import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // Stars: one row per account and file it starred (modules/files/favourites). The file's record
    // shows them in `favorited_by` (kept beside the row, as `roles` is); a star goes with its file and
    // with the share that let its account read the file.
    await db.schema
      .createTable('file_favourites')
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_favourites_pk', ['file_id', 'account_id'])
      .execute()
    // The caller's favourites listing, in file ID order, and the per-account count.
    await db.schema
      .createIndex('file_favourites_account_idx')
      .on('file_favourites')
      .columns(['account_id', 'file_id'])
      .execute()
    // Locked views: the account holding a configuration's lock (`locked_by` keeps the e-mail shown
    // as `lockedBy`). Values stored before, when `lockedBy` was advisory, name no holder: cleared.
    await db.schema.alterTable('configurations').addColumn('locked_by_id', 'text').execute()
    await clearAdvisoryLocks(db)
  },
}

/**
 * Clears the advisory `locked_by` values and takes their UTF-8 bytes off the file's configuration
 * total (file_item_totals, migration 0015), which counts that column. In JS, so the bytes are
 * counted exactly as the API counts them (Buffer.byteLength), on both databases.
 */
async function clearAdvisoryLocks(db: AnyDb): Promise<void> {
  const { rows } = await sql<{ file_id: string; locked_by: string }>`
    select file_id, locked_by from configurations where locked_by is not null`.execute(db)
  const bytesByFile = new Map<string, number>()
  for (const row of rows) {
    bytesByFile.set(row.file_id, (bytesByFile.get(row.file_id) ?? 0) + Buffer.byteLength(row.locked_by))
  }
  for (const [fileId, bytes] of bytesByFile) {
    await sql`update file_item_totals set bytes = bytes - ${bytes}
      where file_id = ${fileId} and kind = 'configuration'`.execute(db)
  }
  await sql`update configurations set locked_by = null where locked_by is not null`.execute(db)
}
