// Files: records, directory listings, downloads and deletion (uploads and revisions: upload.ts;
// sharing: sharing.ts). Blobs are removed only after the transaction that stops referencing them
// commits, so a committed row never points at a missing blob.
import type { Static } from 'typebox'
import { publicBucketName } from '../../platform/blobs/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { Executor } from '../../platform/db/index.ts'
import type { BlobDownload } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import { dropFileJobs } from '../../platform/job-queue.ts'
import { requireFileAccess } from './access.ts'
import { lockFile } from './locks.ts'
import { normalizeDirectory } from './names.ts'
import * as repo from './repository.ts'
import { pruneAllRevisions } from './revision-repository.ts'
import { removePrunedRevisions } from './revisions.ts'
import type { FileRecord } from './schemas.ts'

export type FileRecordShape = Static<typeof FileRecord>

export function toFileRecord(row: repo.FileRowWithEmails): FileRecordShape {
  return {
    _id: row.id,
    parent: row.parent,
    key: row.key,
    name: row.name,
    owner: row.owner_email,
    user: row.user_email,
    roles: JSON.parse(row.roles) as FileRecordShape['roles'],
    isLink: row.is_link === 1,
    shareToken: row.share_token,
    size: row.size,
    created: new Date(row.created_at).toISOString(),
    updated: new Date(row.updated_at).toISOString(),
    revisionDate: new Date(row.revision_date).toISOString(),
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    allowLivePublicMeetings: row.allow_live_public_meetings === 1,
    state: row.state,
    error: row.error,
    sceneTreeNames: JSON.parse(row.scene_tree_names) as string[],
    sceneTreeRoots: JSON.parse(row.scene_tree_roots) as string[],
    favoritedBy: JSON.parse(row.favorited_by) as unknown[],
    type: row.type,
    bucket: publicBucketName(row.bucket),
    __v: row.version,
  }
}

/** The API's answer for a file: the spec's record plus the conversion's progress and thumbnail. */
export type FileViewShape = FileRecordShape & { progress: number; thumbnailUrl: string | null }

export function toFileView(row: repo.FileRowWithEmails): FileViewShape {
  const thumbnailUrl = row.state === 'ready' && row.thumbnail_key ? `/file/${row.id}/thumbnail` : null
  return { ...toFileRecord(row), progress: row.progress, thumbnailUrl }
}

export async function listFiles(
  ctx: AppContext,
  accountId: string,
  directory: string,
): Promise<FileViewShape[]> {
  const rows = await repo.listDirectory(ctx.db.kysely, accountId, normalizeDirectory(directory))
  return rows.map(toFileView)
}

async function rowOf(db: Executor, fileId: string, accountId: string) {
  const row = await repo.findFileForAccount(db, fileId, accountId)
  if (!row) throw new AppError('NOT_FOUND', `No file ${fileId}.`)
  return row
}

/** The file record as `accountId` (its owner or someone it is shared with) sees it. */
export async function recordOf(db: Executor, fileId: string, accountId: string): Promise<FileRecordShape> {
  return toFileRecord(await rowOf(db, fileId, accountId))
}

/** As recordOf, with the API's extra fields. */
export async function viewOf(db: Executor, fileId: string, accountId: string): Promise<FileViewShape> {
  return toFileView(await rowOf(db, fileId, accountId))
}

// ---------------------------------------------------------------------------------------------
// Reading, downloading, deleting

export async function getFile(ctx: AppContext, accountId: string, fileId: string): Promise<FileViewShape> {
  const { file } = await requireFileAccess(ctx.db.kysely, accountId, fileId, 'read')
  return toFileView(file)
}

export async function originalDownload(
  ctx: AppContext,
  accountId: string,
  fileId: string,
): Promise<BlobDownload> {
  const { file } = await requireFileAccess(ctx.db.kysely, accountId, fileId, 'read')
  return {
    key: file.blob_key,
    size: file.size,
    sha256: file.sha256,
    contentType: 'application/octet-stream',
    fileName: file.name,
  }
}

/**
 * Owner only. The row, its shares and jobs go in one transaction, its earlier revisions are marked
 * pruned in it; the blobs once it commits (the revisions' through their rows, see revisions.ts).
 */
export async function deleteFile(ctx: AppContext, accountId: string, fileId: string): Promise<void> {
  const { db } = ctx
  const { blobKeys, revisions } = await db.kysely.transaction().execute(async (tx) => {
    await lockFile(db, tx, fileId)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    await dropFileJobs(tx, fileId)
    const pruned = await pruneAllRevisions(tx, fileId, Date.now())
    return { blobKeys: await repo.deleteFile(tx, fileId), revisions: pruned }
  })
  for (const key of blobKeys) await discardBlob(ctx, key)
  await removePrunedRevisions(ctx, revisions)
}

/** Best effort: a blob nothing references any more; a failure leaves garbage, never a broken row. */
export async function discardBlob(ctx: Pick<AppContext, 'blobs' | 'log'>, key: string): Promise<void> {
  try {
    await ctx.blobs.delete(key)
  } catch (error) {
    ctx.log.warn({ err: error, blobKey: key }, 'could not remove an unreferenced blob')
  }
}
