// Uploads and revisions. The bytes stream into the blob store under a fresh key first (constant
// memory, measured and hashed on the way, refused past TESSERA_UPLOAD_MAX_BYTES); then one
// transaction writes the file row (new, or the next revision of the caller's file at that path),
// queues the conversion and emits `file_uploaded`. A replaced revision goes into the file's history
// (revisions/service.ts) with its blob; blobs of revisions pruned past the limit are removed once that
// commits, the new one if it does not, so a committed row never points at a missing blob.

import { emitEvent } from '../../../events/index.ts'
import type { AppContext } from '../../../platform/context.ts'
import type { Tx } from '../../../platform/db/index.ts'
import type { InCommit } from '../../../platform/idempotency.ts'
import { newId } from '../../../platform/ids.ts'
import { dropPendingJobs, enqueueJob } from '../../../platform/job-queue.ts'
import { fileReaderIds } from '../access.ts'
import { listingsChanged } from '../listing/changes.ts'
import { lockFile, lockFilePath } from '../locks.ts'
import { fileKey } from '../names.ts'
import { checkAccountQuota, lockAccountQuota } from '../quota.ts'
import * as repo from '../repository.ts'
import { keepCurrentRevision, type PrunedRevision, removePrunedRevisions } from '../revisions/service.ts'
import { discardBlob, type FileRecordShape, type FileViewShape, recordOf, shareLinkOf } from '../service.ts'
import { callerFields } from '../views.ts'

/** Bytes stored under a fresh key, not yet referenced by any file row. */
export interface StagedBlob {
  key: string
  size: number
  sha256: string
}

/** Streams an upload into the blob store; 413 PAYLOAD_TOO_LARGE (and nothing kept) past the limit. */
export async function stageUpload(ctx: AppContext, body: NodeJS.ReadableStream): Promise<StagedBlob> {
  // One key per stored revision: a revision never overwrites the blob a reader may be streaming.
  const key = `originals/${newId()}`
  const { size, sha256 } = await ctx.blobs.put(key, body, { maxBytes: ctx.config.uploadMaxBytes })
  return { key, size, sha256 }
}

export interface NewUpload {
  name: string
  parent: string
  blob: StagedBlob
}

/** Where an upload went: which revision of which file, and the earlier revisions it pruned. */
interface StoredRevision {
  fileId: string
  /** The file's revision number (not its `__v`, which shares move too). */
  revision: number
  /** The revision number people see (1 for the first upload). */
  revisionNumber: number
  pruned: PrunedRevision[]
}

/** What one upload transaction writes and reads back, named for the steps below. */
interface UploadTarget {
  accountId: string
  key: string
  upload: NewUpload
  now: number
}

/**
 * Records a staged upload: a new file, or the next revision of the caller's file at that path.
 * Also queues its conversion job and the `file_uploaded` event, all in one transaction, at whose
 * end `inCommit` runs with the answer (the route stores its Idempotency-Key answer there).
 */
export async function commitUpload(
  ctx: AppContext,
  accountId: string,
  upload: NewUpload,
  inCommit?: InCommit<FileViewShape>,
): Promise<FileViewShape> {
  const key = fileKey(upload.parent, upload.name)
  let outcome: {
    record: FileRecordShape
    revisionNumber: number
    pruned: PrunedRevision[]
    shareToken: string
  }
  try {
    outcome = await ctx.db.kysely.transaction().execute(async (tx) => {
      await lockAccountQuota(ctx, tx, accountId)
      await lockFilePath(ctx.db, tx, accountId, key)
      const target = { accountId, key, upload, now: Date.now() }
      const stored = (await storeRevision(ctx, tx, target)) ?? (await storeNewFile(ctx, tx, target))
      await checkAccountQuota(ctx, tx, accountId, {
        what: `This upload (${upload.blob.size} bytes)`,
        growth: upload.blob.size,
      })
      // `fileRevision` lets a worker drop a job that a newer revision superseded (and only that).
      await enqueueJob(ctx.db, tx, {
        kind: 'convert',
        fileId: stored.fileId,
        fileRevision: stored.revision,
        accountId,
        now: target.now,
      })
      const record = await emitUploaded(ctx, tx, stored.fileId, accountId)
      // A new revision keeps its file's share link: the owner's answer shows its id.
      const shareToken = await shareLinkOf(tx, stored.fileId)
      await inCommit?.(tx, justQueued(record, stored.revisionNumber, shareToken))
      return { record, revisionNumber: stored.revisionNumber, pruned: stored.pruned, shareToken }
    })
  } catch (error) {
    await discardBlob(ctx, upload.blob.key)
    throw error
  }
  await listingsChanged(ctx)
  await removePrunedRevisions(ctx, outcome.pruned)
  return justQueued(outcome.record, outcome.revisionNumber, outcome.shareToken)
}

/** The answer's view of a file just queued: nothing converted yet; the uploader owns it. */
function justQueued(record: FileRecordShape, revisionNumber: number, shareToken: string): FileViewShape {
  return { ...record, progress: 0, thumbnailUrl: null, revisionNumber, ...callerFields('owner', shareToken) }
}

/**
 * The next revision of the caller's file at the path, if there is one: new content, conversion
 * results reset, the previous revision's conversion dropped (queued, or running: its worker is woken
 * and stops it), the replaced revision kept in the file's history.
 */
async function storeRevision(ctx: AppContext, tx: Tx, target: UploadTarget): Promise<StoredRevision | null> {
  const { upload, now } = target
  const existing = await repo.findOwnFileByKey(tx, target.accountId, target.key)
  if (!existing) return null
  await lockFile(ctx.db, tx, existing.id)
  // Read again under the lock: what the history keeps must be the revision this upload replaces.
  const kept = await keepCurrentRevision(ctx, tx, existing.id, now)
  // The file was deleted between our read and our lock: the upload makes a new one.
  if (!kept) return null
  const { current } = kept
  const revised = await repo.updateRevision(tx, existing.id, {
    userId: target.accountId,
    size: upload.blob.size,
    sha256: upload.blob.sha256,
    bucket: ctx.blobs.bucket,
    blobKey: upload.blob.key,
    now: Math.max(now, current.updated_at + 1),
    // Strictly later than the previous revision, even within one millisecond.
    revisionDate: Math.max(now, current.revision_date + 1),
  })
  if (!revised) throw new Error(`File ${existing.id} vanished under its lock.`)
  await dropPendingJobs(ctx.db, tx, { fileId: existing.id, kind: 'convert' })
  return {
    fileId: existing.id,
    revision: revised.revision,
    revisionNumber: revised.revision_number,
    pruned: kept.pruned,
  }
}

async function storeNewFile(ctx: AppContext, tx: Tx, target: UploadTarget): Promise<StoredRevision> {
  const { upload, now } = target
  const fileId = newId(now)
  await repo.insertFile(tx, {
    id: fileId,
    owner_id: target.accountId,
    user_id: target.accountId,
    parent: upload.parent,
    key: target.key,
    name: upload.name,
    size: upload.blob.size,
    sha256: upload.blob.sha256,
    state: 'queued',
    error: '',
    progress: 0,
    bucket: ctx.blobs.bucket,
    blob_key: upload.blob.key,
    share_token: '',
    is_link: 0,
    allow_live_public_meetings: 0,
    roles: '[]',
    attributes: '{}',
    scene_tree_names: '[]',
    scene_tree_roots: '[]',
    favorited_by: '[]',
    type: 'file',
    created_at: now,
    updated_at: now,
    revision_date: now,
    version: 0,
    revision_number: 1,
    optimized_key: null,
    optimized_size: 0,
    optimized_sha256: '',
  })
  return { fileId, revision: 0, revisionNumber: 1, pruned: [] }
}

/** Emits `file_uploaded` with the record as the uploader sees it; answers that record. */
async function emitUploaded(ctx: AppContext, tx: Tx, fileId: string, accountId: string) {
  const record = await recordOf(tx, fileId, accountId)
  await emitEvent(ctx, tx, {
    event: 'file_uploaded',
    fileId,
    fileOwnerId: accountId,
    readerAccountIds: await fileReaderIds(tx, fileId),
    data: record,
  })
  return record
}
