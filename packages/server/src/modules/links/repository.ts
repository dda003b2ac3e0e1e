// SQL of file_links (tables.ts). Rows are inserted and deleted, never updated (migration 0030): the
// row-change feed then hears every end of a link as a change of its id.
import type { Insertable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type { FileLinksTable } from './tables.ts'

export function findLinkOfFile(db: Executor, fileId: string) {
  return db.selectFrom('file_links').selectAll().where('file_id', '=', fileId).executeTakeFirst()
}

/** The link a token opens, with what the opener is told of its file. */
export function findLinkByTokenHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('file_links')
    .innerJoin('files', 'files.id', 'file_links.file_id')
    .selectAll('file_links')
    .select(['files.allow_live_public_meetings', 'files.owner_id'])
    .where('file_links.token_hash', '=', tokenHash)
    .executeTakeFirst()
}

/** The link a link session names, if it still exists (with its file's live-meeting flag). */
export function findLinkById(db: Executor, linkId: string) {
  return db
    .selectFrom('file_links')
    .innerJoin('files', 'files.id', 'file_links.file_id')
    .select([
      'file_links.id',
      'file_links.file_id',
      'file_links.expires_at',
      'files.allow_live_public_meetings',
      'files.owner_id',
    ])
    .where('file_links.id', '=', linkId)
    .executeTakeFirst()
}

export async function insertLink(db: Executor, row: Insertable<FileLinksTable>): Promise<void> {
  await db.insertInto('file_links').values(row).execute()
}

export async function deleteLinkOfFile(db: Executor, fileId: string): Promise<boolean> {
  const result = await db.deleteFrom('file_links').where('file_id', '=', fileId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
