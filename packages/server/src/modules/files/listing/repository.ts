// SQL of the listings: a page of a directory, its sub-folders, the files shared with an account.
import { type Executor, precompiled } from '../../../platform/db/index.ts'
import { FILE_RECORD_COLUMNS } from '../repository.ts'

// Names are unique in a directory (the key owner + parent/name is), so the name is the cursor;
// every name is non-empty, so `name > ''` starts at the beginning. Index: files_owner_parent_name_idx.
const directoryPage = precompiled((db, ownerId: string, parent: string, afterName: string, limit: number) =>
  db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .select(FILE_RECORD_COLUMNS)
    .where('files.owner_id', '=', ownerId)
    .where('files.parent', '=', parent)
    .where('files.name', '>', afterName)
    .orderBy('files.name')
    .limit(limit),
)

export function listDirectoryPage(
  db: Executor,
  ownerId: string,
  parent: string,
  afterName: string,
  limit: number,
) {
  return directoryPage(db, ownerId, parent, afterName, limit)
}

// The same page, only the columns that say whether a kept view is still the row's (view-json.ts)
// and the name (the cursor): no wide JSON columns, and no join. The owner is the caller, whose
// e-mail the caller knows; the uploader's e-mail is read only when it is someone else.
const directoryPageKeys = precompiled(
  (db, ownerId: string, parent: string, afterName: string, limit: number) =>
    db
      .selectFrom('files')
      .select((eb) => [
        'files.id',
        'files.name',
        'files.version',
        'files.updated_at',
        'files.progress',
        'files.state',
        'files.thumbnail_key',
        eb
          .case()
          .when('files.user_id', '=', eb.ref('files.owner_id'))
          .then(eb.lit(null))
          .else(
            eb.selectFrom('accounts').select('accounts.email').whereRef('accounts.id', '=', 'files.user_id'),
          )
          .end()
          .$castTo<string | null>()
          .as('other_uploader_email'),
      ])
      .where('files.owner_id', '=', ownerId)
      .where('files.parent', '=', parent)
      .where('files.name', '>', afterName)
      .orderBy('files.name')
      .limit(limit),
)

export function listDirectoryPageKeys(
  db: Executor,
  ownerId: string,
  parent: string,
  afterName: string,
  limit: number,
) {
  return directoryPageKeys(db, ownerId, parent, afterName, limit)
}

/** Whole rows of the owner's files among `ids` (any order; a file deleted meanwhile is absent). */
export function ownFilesByIds(db: Executor, ownerId: string, ids: readonly string[]) {
  return db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .select(FILE_RECORD_COLUMNS)
    .where('files.owner_id', '=', ownerId)
    .where('files.id', 'in', ids)
    .execute()
}

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

/** Files shared with the account, in file ID order after `afterId` ('' = from the start), with its role. */
export function listSharedPage(db: Executor, accountId: string, afterId: string, limit: number) {
  return db
    .selectFrom('file_shares')
    .innerJoin('files', 'files.id', 'file_shares.file_id')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .select([...FILE_RECORD_COLUMNS, 'file_shares.role as share_role'])
    .where('file_shares.account_id', '=', accountId)
    .where('file_shares.file_id', '>', afterId)
    .orderBy('file_shares.file_id')
    .limit(limit)
    .execute()
}
