// SQL of the files module.
import { type Executor, precompiled } from '../../platform/db/index.ts'
import type { FileSharesTable, FilesTable, JobsTable } from '../../platform/db/schema.ts'

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
      'files.progress',
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

/** The caller's own file at a path (uploads there become revisions of it). */
export function findOwnFileByKey(db: Executor, ownerId: string, key: string) {
  return db
    .selectFrom('files')
    .select(['id', 'version', 'revision_date', 'updated_at', 'blob_key'])
    .where('owner_id', '=', ownerId)
    .where('key', '=', key)
    .executeTakeFirst()
}

export function insertFile(db: Executor, row: FilesTable): Promise<unknown> {
  return db.insertInto('files').values(row).execute()
}

export interface RevisionUpdate {
  userId: string
  size: number
  sha256: string
  bucket: string
  blobKey: string
  now: number
  revisionDate: number
}

/** A new revision replaces the content and resets what the conversion derives from it. */
export function updateRevision(db: Executor, fileId: string, update: RevisionUpdate) {
  return db
    .updateTable('files')
    .set((eb) => ({
      user_id: update.userId,
      size: update.size,
      sha256: update.sha256,
      bucket: update.bucket,
      blob_key: update.blobKey,
      state: 'queued',
      error: '',
      progress: 0,
      scene_tree_names: '[]',
      scene_tree_roots: '[]',
      updated_at: update.now,
      revision_date: update.revisionDate,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', fileId)
    .returning(['version'])
    .executeTakeFirst()
}

export function insertJob(db: Executor, row: JobsTable): Promise<unknown> {
  return db.insertInto('jobs').values(row).execute()
}

/** Queued jobs of an older revision are superseded by the new one (running ones check `file_version`). */
export function deleteQueuedJobs(db: Executor, fileId: string, kind: string): Promise<unknown> {
  return db
    .deleteFrom('jobs')
    .where('file_id', '=', fileId)
    .where('kind', '=', kind)
    .where('state', '=', 'queued')
    .execute()
}

/** Removes a file with its shares and jobs; answers the blob keys to remove once this commits. */
export async function deleteFile(db: Executor, fileId: string): Promise<string[]> {
  await db.deleteFrom('jobs').where('file_id', '=', fileId).execute()
  await db.deleteFrom('file_shares').where('file_id', '=', fileId).execute()
  const rows = await db.deleteFrom('files').where('id', '=', fileId).returning(['blob_key']).execute()
  return rows.map((row) => row.blob_key)
}

export function upsertShare(db: Executor, row: FileSharesTable): Promise<unknown> {
  return db
    .insertInto('file_shares')
    .values(row)
    .onConflict((oc) => oc.columns(['file_id', 'account_id']).doUpdateSet({ role: row.role }))
    .execute()
}

export async function deleteShare(db: Executor, fileId: string, accountId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('file_shares')
    .where('file_id', '=', fileId)
    .where('account_id', '=', accountId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Stores the denormalised `roles` of the record and counts the change as an update. */
export function setRoles(db: Executor, fileId: string, roles: string, now: number): Promise<unknown> {
  return db
    .updateTable('files')
    .set((eb) => ({ roles, updated_at: now, version: eb('version', '+', 1) }))
    .where('id', '=', fileId)
    .execute()
}
