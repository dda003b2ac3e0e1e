// The revision history of a file. An upload to the path of an existing file replaces its current
// revision (upload/service.ts); in the same transaction the replaced revision becomes a `file_revisions`
// row and its original blob stays. At most TESSERA_FILE_REVISIONS_KEPT earlier revisions are kept:
// older ones are marked pruned in that transaction, and once it commits their blobs are removed,
// then their rows. The row is what records the pending removal, so a crash in between leaves a
// pruned row (never listed, never served) that the next start-up finishes (sweepPrunedRevisions):
// no blob is left that nothing refers to.
import type { AppContext } from '../../../platform/context.ts'
import type { Tx } from '../../../platform/db/index.ts'
import type { BlobDownload } from '../../../platform/downloads.ts'
import { AppError } from '../../../platform/errors.ts'
import { requireFileAccess } from '../access.ts'
import type { PrunedRevision } from './repository.ts'
import * as repo from './repository.ts'

export type { PrunedRevision } from './repository.ts'

/** One entry of GET /file/:id/revisions. */
export interface RevisionView {
  __v: number
  revisionNumber: number
  revisionDate: string
  size: number
  sha256: string
  name: string
  uploadedBy: string
  current: boolean
}

/** The file's revisions, newest first: the current one, then the kept earlier ones. Readers may list. */
export async function listRevisions(
  ctx: AppContext,
  accountId: string,
  fileId: string,
): Promise<RevisionView[]> {
  const { file } = await requireFileAccess(ctx.db.kysely, accountId, fileId, 'read')
  const current: RevisionView = {
    __v: file.version,
    revisionNumber: file.revision_number,
    revisionDate: new Date(file.revision_date).toISOString(),
    size: file.size,
    sha256: file.sha256,
    name: file.name,
    uploadedBy: file.user_email,
    current: true,
  }
  // Two reads, no transaction: a revision committed in between shows once, as the current one.
  const earlier = (await repo.listRevisions(ctx.db.kysely, fileId)).filter(
    (row) => row.version < file.version,
  )
  return [
    current,
    ...earlier.map((row) => ({
      __v: row.version,
      revisionNumber: row.revision_number,
      revisionDate: new Date(row.revision_date).toISOString(),
      size: row.size,
      sha256: row.sha256,
      name: row.name,
      uploadedBy: row.uploaded_by_email,
      current: false,
    })),
  ]
}

/** The original bytes of revision `version` (the current one too); 404 for one not kept. */
export async function revisionDownload(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  version: number,
): Promise<BlobDownload> {
  const { file } = await requireFileAccess(ctx.db.kysely, accountId, fileId, 'read')
  const revision =
    file.version === version
      ? { name: file.name, size: file.size, sha256: file.sha256, blob_key: file.blob_key }
      : await repo.findRevision(ctx.db.kysely, fileId, version)
  if (!revision) throw new AppError('NOT_FOUND', `File ${fileId} has no revision ${version}.`)
  return {
    key: revision.blob_key,
    size: revision.size,
    sha256: revision.sha256,
    contentType: 'application/octet-stream',
    fileName: revision.name,
  }
}

/**
 * In the transaction of an upload that is about to replace the current revision of `fileId`
 * (its lock held): records that revision as an earlier one and prunes those past the limit.
 * Answers the pruned ones, for removePrunedRevisions once the transaction commits. Null when the
 * file is gone.
 */
export async function keepCurrentRevision(
  ctx: AppContext,
  tx: Tx,
  fileId: string,
  now: number,
): Promise<{ current: repo.CurrentRevision; pruned: PrunedRevision[] } | null> {
  const current = await repo.findCurrentRevision(tx, fileId)
  if (!current) return null
  await repo.insertRevision(tx, {
    file_id: fileId,
    version: current.version,
    name: current.name,
    size: current.size,
    sha256: current.sha256,
    blob_key: current.blob_key,
    uploaded_by: current.user_id,
    revision_date: current.revision_date,
    revision_number: current.revision_number,
    pruned_at: null,
  })
  const pruned = await repo.pruneRevisionsPast(tx, fileId, ctx.config.fileRevisionsKept, now)
  return { current, pruned }
}

/**
 * After the transaction that pruned them committed: each blob, then its row. A blob the store
 * fails to remove keeps its row, so a later sweep tries again; never a row without its blob
 * that is still listed, never a blob without a row.
 */
export async function removePrunedRevisions(
  ctx: Pick<AppContext, 'blobs' | 'log' | 'db'>,
  pruned: readonly PrunedRevision[],
): Promise<boolean> {
  let allRemoved = true
  for (const revision of pruned) {
    try {
      await ctx.blobs.delete(revision.blob_key)
      await repo.deletePrunedRevision(ctx.db.kysely, revision)
    } catch (error) {
      allRemoved = false
      ctx.log.warn(
        { err: error, fileId: revision.file_id, version: revision.version, blobKey: revision.blob_key },
        'could not remove a pruned revision; the next start-up tries again',
      )
    }
  }
  return allRemoved
}

const SWEEP_BATCH = 500

/**
 * At start-up: finishes removals a crashed process left (pruned rows still there). Stops at the
 * first batch with a failure, so a store that refuses deletions does not keep it looping.
 */
export async function sweepPrunedRevisions(ctx: Pick<AppContext, 'blobs' | 'log' | 'db'>): Promise<number> {
  let removed = 0
  for (;;) {
    const batch = await repo.listPrunedRevisions(ctx.db.kysely, SWEEP_BATCH)
    if (batch.length === 0) return removed
    if (!(await removePrunedRevisions(ctx, batch))) return removed
    removed += batch.length
    if (batch.length < SWEEP_BATCH) return removed
  }
}
