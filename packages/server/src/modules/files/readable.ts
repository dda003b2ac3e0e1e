// The files an account may read, in file ID order, for reads that go across files (the scene
// search across files): its own and those shared with it, or a link session's one file.
import { sql } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import { linkReaderOf } from '../../platform/ids.ts'
import type { FileRole } from './access.ts'
import { findFileWithEmails } from './repository.ts'

/** A file a cross-file read may look into, with the caller's role on it. */
export interface ReadableFile {
  id: string
  name: string
  parent: string
  role: FileRole
}

/**
 * Up to `limit` files `accountId` may read, after `afterId` ('' for the first), in ID order: its own
 * and those shared with it; for a link session, its one file.
 */
export async function readableFilesAfter(
  db: Executor,
  accountId: string,
  afterId: string,
  limit: number,
): Promise<ReadableFile[]> {
  const link = linkReaderOf(accountId)
  if (link) {
    const file = link.fileId > afterId ? await findFileWithEmails(db, link.fileId) : undefined
    return file ? [{ id: file.id, name: file.name, parent: file.parent, role: 'link' }] : []
  }
  const rows = await filesOfAccountAfter(db, accountId, afterId, limit)
  const roleNamed = (role: string): FileRole => (role === 'owner' || role === 'editor' ? role : 'viewer')
  return rows.map((row) => ({ ...row, role: roleNamed(row.role) }))
}

interface ListedFile {
  id: string
  name: string
  parent: string
  role: string
}

/**
 * Up to `limit` of the files an account owns or has been shared, after `afterId`, in ID order. Two
 * keyset reads merged here: one by owner, one through the shares' account index.
 */
async function filesOfAccountAfter(
  db: Executor,
  accountId: string,
  afterId: string,
  limit: number,
): Promise<ListedFile[]> {
  const own = db
    .selectFrom('files')
    .select(['id', 'name', 'parent', sql<string>`'owner'`.as('role')])
    .where('owner_id', '=', accountId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute()
  const shared = db
    .selectFrom('file_shares')
    .innerJoin('files', 'files.id', 'file_shares.file_id')
    .select(['files.id', 'files.name', 'files.parent', 'file_shares.role'])
    .where('file_shares.account_id', '=', accountId)
    .where('file_shares.file_id', '>', afterId)
    .orderBy('file_shares.file_id')
    .limit(limit)
    .execute()
  const [owned, sharedWith] = await Promise.all([own, shared])
  const merged = [...owned, ...sharedWith].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return merged.slice(0, limit)
}
