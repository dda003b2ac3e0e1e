// SQL of the listings: the sub-folders of a directory, the files shared with an account. A page of a
// directory is read by the database's own listing store (store.ts).
import type { Executor } from '../../../platform/db/index.ts'
import { FILE_RECORD_COLUMNS } from '../repository.ts'

/**
 * Every directory below `prefix` (which ends with "/") that holds files, with its file count. Folders
 * exist only through the files in them, so these rows are all there is to know about sub-folders.
 * A prefix comparison by substr, not LIKE: LIKE is case-insensitive in SQLite and `%`/`_` may be in names.
 */
export function directoriesBelow(db: Executor, ownerId: string, prefix: string) {
  return db
    .selectFrom('files')
    .select((eb) => ['files.parent', eb.fn.countAll<number | string>().as('n')])
    .where('files.owner_id', '=', ownerId)
    .where((eb) => eb(eb.fn('substr', ['files.parent', eb.lit(1), eb.val(prefix.length)]), '=', prefix))
    .groupBy('files.parent')
    .execute()
}

/**
 * Files shared with the account, in file ID order after `afterId` ('' = from the start), with its role
 * and each file's owner (whose changes move the page: postgres/cache.ts).
 */
export function listSharedPage(db: Executor, accountId: string, afterId: string, limit: number) {
  return db
    .selectFrom('file_shares')
    .innerJoin('files', 'files.id', 'file_shares.file_id')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .select([...FILE_RECORD_COLUMNS, 'files.owner_id', 'file_shares.role as share_role'])
    .where('file_shares.account_id', '=', accountId)
    .where('file_shares.file_id', '>', afterId)
    .orderBy('file_shares.file_id')
    .limit(limit)
    .execute()
}
