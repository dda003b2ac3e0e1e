// SQL of the files module.
import type { Insertable } from 'kysely'
import type { FileState } from '../../contract/index.ts'
import { type Executor, precompiled } from '../../platform/db/index.ts'
import type { FileSharesTable, FilesTable } from './tables.ts'

/**
 * The columns a file record shows, not `files.*`: fewer columns make SQLite's statement preparation
 * (paid on every call) measurably cheaper. Listings select these plus the two e-mails.
 */
export const FILE_RECORD_COLUMNS = [
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
  'files.revision_number',
  'files.thumbnail_key',
  'owner.email as owner_email',
  'uploader.email as user_email',
] as const

/** The owner's files as records (with the owner's and the uploader's e-mails), to narrow further. */
export function ownFileRecords(db: Executor, ownerId: string) {
  return db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .select(FILE_RECORD_COLUMNS)
    .where('files.owner_id', '=', ownerId)
}

const directory = precompiled((db, ownerId: string, parent: string) =>
  ownFileRecords(db, ownerId).where('files.parent', '=', parent).orderBy('files.name'),
)

/** A file row with the e-mails of its owner and of the uploader of the current revision. */
export function listDirectory(db: Executor, ownerId: string, parent: string) {
  return directory(db, ownerId, parent)
}

export type FileRowWithEmails = Awaited<ReturnType<typeof listDirectory>>[number]

// Every request about one file starts here (precompiled: a named statement on PostgreSQL). The
// account is a parameter three times, hence the three arguments.
const fileForAccount = precompiled((db, joinAccount: string, fileId: string, owner: string, sharee: string) =>
  db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .leftJoin('file_shares', (join) =>
      join.onRef('file_shares.file_id', '=', 'files.id').on('file_shares.account_id', '=', joinAccount),
    )
    .selectAll('files')
    .select(['owner.email as owner_email', 'uploader.email as user_email', 'file_shares.role as share_role'])
    .where('files.id', '=', fileId)
    .where((eb) => eb.or([eb('files.owner_id', '=', owner), eb('file_shares.account_id', '=', sharee)])),
)

/** The file with owner/uploader e-mails and the caller's share role, if the caller may see it. */
export async function findFileForAccount(db: Executor, fileId: string, accountId: string) {
  const rows = await fileForAccount(db, accountId, fileId, accountId, accountId)
  return rows[0]
}

/** The file with owner/uploader e-mails, whoever asks (a link session: access.ts); no share role. */
export async function findFileWithEmails(db: Executor, fileId: string) {
  const row = await db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .selectAll('files')
    .select(['owner.email as owner_email', 'uploader.email as user_email'])
    .where('files.id', '=', fileId)
    .executeTakeFirst()
  return row && { ...row, share_role: null as string | null }
}

export async function findShareToken(db: Executor, fileId: string): Promise<string | undefined> {
  const row = await db.selectFrom('files').select('share_token').where('id', '=', fileId).executeTakeFirst()
  return row?.share_token
}

/** Records that the file's share link changed (modules/links): `share_token` holds its link id for the
 * owner's view, "" without a link; `version` and `updated_at` move so kept views are made again. */
export async function setShareLink(db: Executor, fileId: string, linkId: string, now: number): Promise<void> {
  await db
    .updateTable('files')
    .set((eb) => ({ share_token: linkId, updated_at: now, version: eb('version', '+', 1) }))
    .where('id', '=', fileId)
    .execute()
}

/** The file's "allow live public meetings" (link guests in its live sessions); `__v` moves. */
export async function setLiveMeetings(db: Executor, fileId: string, allow: boolean, now: number) {
  await db
    .updateTable('files')
    .set((eb) => ({
      allow_live_public_meetings: allow ? 1 : 0,
      updated_at: now,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', fileId)
    .execute()
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

/** IDs of the files shared with an account, in ID order. */
export async function filesSharedWith(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('file_shares')
    .select('file_id')
    .where('account_id', '=', accountId)
    .orderBy('file_id')
    .execute()
  return rows.map((row) => row.file_id)
}

/** The caller's own file at a path (uploads there become revisions of it). */
export function findOwnFileByKey(db: Executor, ownerId: string, key: string) {
  return db
    .selectFrom('files')
    .select(['id'])
    .where('owner_id', '=', ownerId)
    .where('key', '=', key)
    .executeTakeFirst()
}

export function insertFile(db: Executor, row: Insertable<FilesTable>): Promise<unknown> {
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
      revision: eb('revision', '+', 1),
      revision_number: eb('revision_number', '+', 1),
    }))
    .where('id', '=', fileId)
    .returning(['version', 'revision', 'revision_number'])
    .executeTakeFirst()
}

/** Removes a file with its shares and stars (its jobs are dropped first); answers the blob keys to remove once this commits. */
export async function deleteFile(db: Executor, fileId: string): Promise<string[]> {
  await db.deleteFrom('file_shares').where('file_id', '=', fileId).execute()
  await db.deleteFrom('file_favourites').where('file_id', '=', fileId).execute()
  const rows = await db
    .deleteFrom('files')
    .where('id', '=', fileId)
    .returning(['blob_key', 'optimized_key', 'thumbnail_key'])
    .execute()
  // The derived blobs go too: nothing else references them.
  return rows
    .flatMap((row) => [row.blob_key, row.optimized_key, row.thumbnail_key])
    .filter((key): key is string => typeof key === 'string')
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

/**
 * Stores the denormalised `roles` and `favoritedBy` of the record (JSON) and counts the change as an
 * update.
 */
export function setRecordLists(
  db: Executor,
  fileId: string,
  lists: { roles: string; favoritedBy: string },
  now: number,
): Promise<unknown> {
  return db
    .updateTable('files')
    .set((eb) => ({
      roles: lists.roles,
      favorited_by: lists.favoritedBy,
      updated_at: now,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', fileId)
    .execute()
}

// ---------------------------------------------------------------------------------------------
// What conversion derives from a revision (see state.ts)

/** What a conversion reads of the file it converts. */
export function findConversionSource(db: Executor, fileId: string) {
  return db
    .selectFrom('files')
    .select(['id', 'owner_id', 'name', 'revision', 'blob_key', 'optimized_key', 'thumbnail_key'])
    .where('id', '=', fileId)
    .executeTakeFirst()
}

/**
 * State of revision `revision` (no-op once a newer revision exists). Progress is left as it is: a
 * retry of the same revision holds what readers saw (only a new revision starts again at 0).
 */
export function setRevisionState(
  db: Executor,
  fileId: string,
  revision: number,
  update: { state: FileState; now: number },
): Promise<unknown> {
  return db
    .updateTable('files')
    .set({ state: update.state, updated_at: update.now })
    .where('id', '=', fileId)
    .where('revision', '=', revision)
    .execute()
}

/**
 * Progress while converting; never moves a file that left `converting`, and never lowers it (a
 * retried run climbs again from 0 unseen until it passes what the earlier run had reached).
 */
export function setConvertingProgress(
  db: Executor,
  fileId: string,
  revision: number,
  progress: number,
): Promise<unknown> {
  return db
    .updateTable('files')
    .set({ progress })
    .where('id', '=', fileId)
    .where('revision', '=', revision)
    .where('state', '=', 'converting')
    .where('progress', '<', progress)
    .execute()
}

export interface OptimizedAsset {
  key: string | null
  size: number
  sha256: string
}

/** The end of a conversion: state, error, scene tree roots and optimized asset in one update. */
export function storeConversionOutcome(
  db: Executor,
  fileId: string,
  update: {
    state: 'ready' | 'error'
    error: string
    /** The scene's root nodes: their IDs and names fill sceneTreeRoots / sceneTreeNames. */
    roots: readonly { id: string; name: string }[]
    optimized: OptimizedAsset
    /** The PNG made beside the GLB (all empty when there is none). */
    thumbnail: OptimizedAsset
    now: number
  },
): Promise<unknown> {
  return db
    .updateTable('files')
    .set({
      state: update.state,
      error: update.error,
      progress: update.state === 'ready' ? 100 : 0,
      scene_tree_names: JSON.stringify(update.roots.map((node) => node.name)),
      scene_tree_roots: JSON.stringify(update.roots.map((node) => node.id)),
      optimized_key: update.optimized.key,
      optimized_size: update.optimized.size,
      optimized_sha256: update.optimized.sha256,
      thumbnail_key: update.thumbnail.key,
      thumbnail_size: update.thumbnail.size,
      thumbnail_sha256: update.thumbnail.sha256,
      updated_at: update.now,
    })
    .where('id', '=', fileId)
    .execute()
}

/** Files `queued` or `converting` with no queued or running `convert` job of their current revision. */
export async function findFilesWithoutLiveConversion(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('files')
    .select('files.id')
    .where('files.state', 'in', ['queued', 'converting'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('jobs')
            .select('jobs.id')
            .whereRef('jobs.file_id', '=', 'files.id')
            .whereRef('jobs.file_revision', '=', 'files.revision')
            .where('jobs.kind', '=', 'convert')
            .where('jobs.state', 'in', ['queued', 'running']),
        ),
      ),
    )
    .orderBy('files.id')
    .execute()
  return rows.map((row) => row.id)
}
