// Files: records, downloads and deletion (uploads: upload/; revisions: revisions/; sharing:
// sharing/; listings: listing/). Blobs are removed only after the transaction that stops
// referencing them commits, so a committed row never points at a missing blob.
import { noteFileDeleted } from '../../events/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { Executor } from '../../platform/db/index.ts'
import type { BlobDownload } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import { dropFileJobs } from '../../platform/job-queue.ts'
import { type FileAccess, requireFileAccess, roleOf } from './access.ts'
import { fileAccessChanged } from './access-notices.ts'
import { listingsChanged } from './listing/changes.ts'
import { keptFileReader } from './listing/store.ts'
import { lockFile } from './locks.ts'
import * as repo from './repository.ts'
import { pruneAllRevisions } from './revisions/repository.ts'
import { removePrunedRevisions } from './revisions/service.ts'
import { fileView } from './view-cache.ts'
import { type FileRecordShape, type FileViewShape, toFileRecord, toFileView } from './views.ts'

export type { FileRecordShape, FileViewShape } from './views.ts'

async function rowOf(db: Executor, fileId: string, accountId: string) {
  const row = await repo.findFileForAccount(db, fileId, accountId)
  if (!row) throw new AppError('NOT_FOUND', `No file ${fileId}.`)
  return row
}

/** The file record as `accountId` (its owner or someone it is shared with) sees it. */
export async function recordOf(db: Executor, fileId: string, accountId: string): Promise<FileRecordShape> {
  return toFileRecord(await rowOf(db, fileId, accountId))
}

/** The file's share link id (its row's `share_token`), "" without one. */
export async function shareLinkOf(db: Executor, fileId: string): Promise<string> {
  return (await repo.findShareToken(db, fileId)) ?? ''
}

/** As recordOf, with the API's extra fields (the caller's role and capabilities among them). */
export async function viewOf(db: Executor, fileId: string, accountId: string): Promise<FileViewShape> {
  const row = await rowOf(db, fileId, accountId)
  return toFileView(row, roleOf(row, accountId))
}

// ---------------------------------------------------------------------------------------------
// Reading, downloading, deleting

/**
 * Read access to a file, for requests that only read it (GET /file/:id, its scene tree and model):
 * the row as the app's listing store reads it for an account, on PostgreSQL from memory
 * (listing/store.ts); any other caller reads the row (requireFileAccess).
 */
export function requireFileRead(ctx: AppContext, accountId: string, fileId: string): Promise<FileAccess> {
  return requireFileAccess(ctx.db.kysely, accountId, fileId, 'read', keptFileReader(ctx))
}

/** The file as its caller sees it (its row's part kept, view-cache.ts): what GET /file/:id answers. */
export async function getFile(ctx: AppContext, accountId: string, fileId: string): Promise<FileViewShape> {
  const { file, role } = await requireFileRead(ctx, accountId, fileId)
  return fileView(file, role)
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
 * pruned in it; the blobs once it commits (the revisions' through their rows, see revisions/service.ts).
 */
export async function deleteFile(ctx: AppContext, accountId: string, fileId: string): Promise<void> {
  const { db } = ctx
  const { blobKeys, revisions } = await db.kysely.transaction().execute(async (tx) => {
    await lockFile(db, tx, fileId)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    // A running conversion of it is stopped by its worker, woken at commit (job-queue.ts).
    await dropFileJobs(db, tx, fileId)
    const now = Date.now()
    const pruned = await pruneAllRevisions(tx, fileId, now)
    await noteFileDeleted(tx, fileId, now)
    return { blobKeys: await repo.deleteFile(tx, fileId), revisions: pruned }
  })
  // Its live sessions end now, not at their next re-check (access-notices.ts).
  fileAccessChanged(db, fileId)
  await listingsChanged(ctx)
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
