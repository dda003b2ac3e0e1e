// Files: records, directory listings, uploads and revisions, downloads, deletion and sharing.
//
// Upload flow: the bytes stream into the blob store under a fresh key first (constant memory,
// measured and hashed on the way, refused past TESSERA_UPLOAD_MAX_BYTES); then one transaction
// writes the file row (new, or the next revision of the caller's file at that path), the
// conversion job and the `file_uploaded` event. Blobs are removed only after the transaction that
// stops referencing them commits, and a new blob is removed again if its transaction fails, so a
// committed row never points at a missing blob.
import type { Static } from 'typebox'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource } from '../../platform/db/index.ts'
import type { BlobDownload } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { jobsChannel } from '../../platform/jobs.ts'
import { findAccountsByEmails } from '../accounts/index.ts'
import { emitEvent } from '../webhooks/index.ts'
import { fileReaderIds, requireFileAccess } from './access.ts'
import * as repo from './repository.ts'
import type { FileRecord, ShareRole } from './schemas.ts'

export type FileRecordShape = Static<typeof FileRecord>
export type ShareRoleName = Static<typeof ShareRole>

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
    bucket: row.bucket,
    __v: row.version,
  }
}

/** The API's answer for a file: the spec's record plus the conversion's progress. */
export type FileViewShape = FileRecordShape & { progress: number }

export function toFileView(row: repo.FileRowWithEmails): FileViewShape {
  return { ...toFileRecord(row), progress: row.progress }
}

/** Longest file name, in UTF-8 bytes (what common filesystems allow for one path segment). */
export const NAME_MAX_BYTES = 255
/** Longest directory path, in characters. */
export const DIRECTORY_MAX_LENGTH = 1024

// C0 and C1 control characters and DEL, and the bidirectional overrides and isolates that make a
// name display differently from what it is ("evil\u202Egpj.exe").
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** Why a path segment is refused, or null when it is acceptable. */
function segmentProblem(segment: string): string | null {
  if (segment === '.' || segment === '..') return 'must not be "." or ".."'
  if (segment.includes('/') || segment.includes('\\')) return 'must not contain "/" or "\\"'
  if (FORBIDDEN_CHARACTERS.test(segment))
    return 'must not contain control or bidirectional-override characters'
  if (Buffer.byteLength(segment, 'utf8') > NAME_MAX_BYTES) return `must be at most ${NAME_MAX_BYTES} bytes`
  return null
}

/**
 * The name an upload is stored under: Unicode NFC, surrounding white space trimmed. Names that
 * would escape their directory, hide characters or are too long are refused (400), not rewritten,
 * so the stored name is always the one the client asked for.
 */
export function sanitizeFileName(raw: string | undefined): string {
  const name = (raw ?? '').normalize('NFC').trim()
  if (name === '') throw new AppError('VALIDATION_FAILED', 'The file part needs a file name.')
  const problem = segmentProblem(name)
  if (problem) throw new AppError('VALIDATION_FAILED', `The file name ${problem}.`)
  return name
}

/** `a/b/` or `/a/b` → `/a/b`; the root is `/`. Segments follow the file name rules. */
export function normalizeDirectory(raw: string): string {
  const segments = raw
    .normalize('NFC')
    .split('/')
    .filter((s) => s !== '')
  for (const segment of segments) {
    const problem = segmentProblem(segment)
    if (problem || segment.trim() !== segment) {
      throw new AppError('VALIDATION_FAILED', 'The directory path is not valid.')
    }
  }
  const directory = `/${segments.join('/')}`
  if (directory.length > DIRECTORY_MAX_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `The directory path is longer than ${DIRECTORY_MAX_LENGTH}.`)
  }
  return directory
}

export function fileKey(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`
}

export async function listFiles(
  ctx: AppContext,
  accountId: string,
  directory: string,
): Promise<FileViewShape[]> {
  const rows = await repo.listDirectory(ctx.db.kysely, accountId, normalizeDirectory(directory))
  return rows.map(toFileView)
}

// ---------------------------------------------------------------------------------------------
// Uploads

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

/** Best effort: a blob nothing references any more; a failure leaves garbage, never a broken row. */
export async function discardBlob(ctx: Pick<AppContext, 'blobs' | 'log'>, key: string): Promise<void> {
  try {
    await ctx.blobs.delete(key)
  } catch (error) {
    ctx.log.warn({ err: error, blobKey: key }, 'could not remove an unreferenced blob')
  }
}

export interface NewUpload {
  name: string
  parent: string
  blob: StagedBlob
}

/**
 * Records a staged upload: a new file, or the next revision of the caller's file at that path.
 * Also queues its conversion job and the `file_uploaded` event, all in one transaction.
 */
export async function commitUpload(
  ctx: AppContext,
  accountId: string,
  upload: NewUpload,
): Promise<FileViewShape> {
  const { db } = ctx
  const key = fileKey(upload.parent, upload.name)
  let outcome: { record: FileRecordShape; replacedBlob: string | null }
  try {
    outcome = await db.kysely.transaction().execute(async (tx) => {
      // Serializes uploads to one path so two first uploads cannot both create the file.
      await lockResource(db, tx, `tessera.files.path.${accountId}.${key}`)
      const now = Date.now()
      const existing = await repo.findOwnFileByKey(tx, accountId, key)
      // A revision changes the file and its jobs: the file's lock first, as every transaction that
      // touches a file's jobs takes it (conversion claims and outcomes, deletion).
      if (existing) await lockResource(db, tx, `tessera.files.${existing.id}`)
      let fileId: string
      let version: number
      let replacedBlob: string | null = null
      const revised = existing
        ? await repo.updateRevision(tx, existing.id, {
            userId: accountId,
            size: upload.blob.size,
            sha256: upload.blob.sha256,
            bucket: ctx.blobs.bucket,
            blobKey: upload.blob.key,
            now: Math.max(now, existing.updated_at + 1),
            // Strictly later than the previous revision, even within one millisecond.
            revisionDate: Math.max(now, existing.revision_date + 1),
          })
        : undefined
      if (existing && revised) {
        fileId = existing.id
        version = revised.version
        replacedBlob = existing.blob_key
        await repo.deleteQueuedJobs(tx, fileId, 'convert')
      } else {
        // New file (or the old one was deleted between our read and our update).
        fileId = newId(now)
        version = 0
        await repo.insertFile(tx, {
          id: fileId,
          owner_id: accountId,
          user_id: accountId,
          parent: upload.parent,
          key,
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
          version,
          optimized_key: null,
          optimized_size: 0,
          optimized_sha256: '',
        })
      }
      // Conversion workers (modules/conversion) claim this row. `file_version` lets a worker drop
      // a job that a newer revision superseded.
      await repo.insertJob(tx, {
        id: newId(now),
        kind: 'convert',
        file_id: fileId,
        file_version: version,
        state: 'queued',
        run_at: now,
        attempts: 0,
        lease_until: null,
        leased_by: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      await jobsChannel.wake(ctx.db, tx)
      const record = await recordOf(tx, fileId, accountId)
      await emitEvent(ctx, tx, {
        event: 'file_uploaded',
        fileId,
        fileOwnerId: accountId,
        readerAccountIds: await fileReaderIds(tx, fileId),
        data: record,
      })
      return { record, replacedBlob }
    })
  } catch (error) {
    await discardBlob(ctx, upload.blob.key)
    throw error
  }
  if (outcome.replacedBlob && outcome.replacedBlob !== upload.blob.key) {
    await discardBlob(ctx, outcome.replacedBlob)
  }
  // Just queued: nothing converted yet.
  return { ...outcome.record, progress: 0 }
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
async function viewOf(db: Executor, fileId: string, accountId: string): Promise<FileViewShape> {
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

/** Owner only. The row, its shares and jobs go in one transaction; the blobs once it commits. */
export async function deleteFile(ctx: AppContext, accountId: string, fileId: string): Promise<void> {
  const { db } = ctx
  const blobKeys = await db.kysely.transaction().execute(async (tx) => {
    await lockResource(db, tx, `tessera.files.${fileId}`)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    return repo.deleteFile(tx, fileId)
  })
  for (const key of blobKeys) await discardBlob(ctx, key)
}

// ---------------------------------------------------------------------------------------------
// Sharing

async function shareTarget(ctx: AppContext, ownerEmail: string, email: string) {
  const [account] = await findAccountsByEmails(ctx, [email])
  if (!account) throw new AppError('NOT_FOUND', `No account with the e-mail ${email}.`)
  if (account.email === ownerEmail) {
    throw new AppError('VALIDATION_FAILED', 'The owner of a file always has every right on it.')
  }
  return account
}

/** Re-derives the record's `roles` from the shares (in the caller's transaction). */
async function refreshRoles(tx: Parameters<typeof repo.listShares>[0], fileId: string): Promise<void> {
  const shares = await repo.listShares(tx, fileId)
  const roles = shares.map((share) => ({ email: share.email, role: share.role }))
  await repo.setRoles(tx, fileId, JSON.stringify(roles), Date.now())
}

/** Owner only: gives (or changes) an account's role on the file. */
export async function shareFile(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  input: { email: string; role: ShareRoleName },
): Promise<FileViewShape> {
  const { db } = ctx
  // Access first, so that a stranger or a reader learns nothing about which e-mails exist.
  const { file } = await requireFileAccess(db.kysely, accountId, fileId, 'owner')
  const target = await shareTarget(ctx, file.owner_email, input.email)
  return db.kysely.transaction().execute(async (tx) => {
    await lockResource(db, tx, `tessera.files.${fileId}`)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    await repo.upsertShare(tx, {
      file_id: fileId,
      account_id: target.id,
      role: input.role,
      created_at: Date.now(),
    })
    await refreshRoles(tx, fileId)
    return viewOf(tx, fileId, accountId)
  })
}

/** Owner only: takes an account's role away. 404 when the file is not shared with that account. */
export async function unshareFile(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  email: string,
): Promise<FileViewShape> {
  const { db } = ctx
  const { file } = await requireFileAccess(db.kysely, accountId, fileId, 'owner')
  const target = await shareTarget(ctx, file.owner_email, email)
  return db.kysely.transaction().execute(async (tx) => {
    await lockResource(db, tx, `tessera.files.${fileId}`)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    if (!(await repo.deleteShare(tx, fileId, target.id))) {
      throw new AppError('NOT_FOUND', `The file is not shared with ${target.email}.`)
    }
    await refreshRoles(tx, fileId)
    return viewOf(tx, fileId, accountId)
  })
}
