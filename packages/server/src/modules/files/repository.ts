// SQL of the files module.
import { type Executor, precompiled } from '../../platform/db/index.ts'

const directory = precompiled((db, ownerId: string, parent: string) =>
  db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    // The columns a file record shows, not `files.*`: fewer columns make SQLite's statement
    // preparation (paid on every call) measurably cheaper.
    .select([
      'files.id',
      'files.parent',
      'files.key',
      'files.name',
      'files.size',
      'files.state',
      'files.error',
      'files.bucket',
      'files.share_token',
      'files.is_link',
      'files.allow_live_public_meetings',
      'files.roles',
      'files.attributes',
      'files.scene_tree_names',
      'files.scene_tree_roots',
      'files.favorited_by',
      'files.type',
      'files.created_at',
      'files.updated_at',
      'files.revision_date',
      'files.version',
      'owner.email as owner_email',
      'uploader.email as user_email',
    ])
    .where('files.owner_id', '=', ownerId)
    .where('files.parent', '=', parent)
    .orderBy('files.name'),
)

/** A file row with the e-mails of its owner and of the uploader of the current revision. */
export function listDirectory(db: Executor, ownerId: string, parent: string) {
  return directory(db, ownerId, parent)
}

export type FileRowWithEmails = Awaited<ReturnType<typeof listDirectory>>[number]

/** The file with owner/uploader e-mails and the caller's share role, if the caller may see it. */
export function findFileForAccount(db: Executor, fileId: string, accountId: string) {
  return db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .leftJoin('file_shares', (join) =>
      join.onRef('file_shares.file_id', '=', 'files.id').on('file_shares.account_id', '=', accountId),
    )
    .selectAll('files')
    .select(['owner.email as owner_email', 'uploader.email as user_email', 'file_shares.role as share_role'])
    .where('files.id', '=', fileId)
    .where((eb) =>
      eb.or([eb('files.owner_id', '=', accountId), eb('file_shares.account_id', '=', accountId)]),
    )
    .executeTakeFirst()
}

/** Accounts a file is shared with (the owner is not listed). */
export function listShares(db: Executor, fileId: string) {
  return db
    .selectFrom('file_shares')
    .innerJoin('accounts', 'accounts.id', 'file_shares.account_id')
    .select(['file_shares.account_id', 'file_shares.role', 'accounts.email'])
    .where('file_shares.file_id', '=', fileId)
    .orderBy('accounts.email')
    .execute()
}
