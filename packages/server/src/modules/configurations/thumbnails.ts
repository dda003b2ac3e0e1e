// A saved view's thumbnail: a small PNG or WebP the console renders of the view and stores beside
// the configuration (the record, the spec's, has no field for it). Reading it takes what reading the
// configuration takes (its file's read role, a link session included, and its readPermissions: else
// 404); writing it what changing the configuration takes (owner or editor, its writePermissions, and
// no lock held by another account: 409 CONFIGURATION_LOCKED). The record does not change (no `__v`,
// no event): the thumbnail illustrates the view, it is not part of it. Deleted with the configuration
// and with its file (the foreign key's cascade, migration 0031). Its bytes count toward the file
// owner's TESSERA_ACCOUNT_QUOTA_BYTES, whoever stores it (files' quota.ts): a write that grows them
// past the quota rolls back with 413 QUOTA_EXCEEDED.
import { createHash } from 'node:crypto'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource, type Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { accessLists, type ItemCaller } from '../file-items/index.ts'
import { checkAccountQuota, lockAccountQuota, lockFile, requireFileAccess } from '../files/index.ts'
import { refuseLockedByOther } from './locks.ts'
import * as repo from './repository.ts'
import { checkThumbnail, type ThumbnailType } from './thumbnail-image.ts'

export interface StoredThumbnail {
  contentType: ThumbnailType
  width: number
  height: number
  size: number
  sha256: string
  bytes: Buffer
}

/** The configuration, when the caller may read it (else 404, as for the record itself). */
async function readable(db: Executor, caller: ItemCaller, id: string) {
  const notFound = () => new AppError('NOT_FOUND', `No configuration ${id}.`)
  const row = await repo.find(db, id)
  if (!row) throw notFound()
  let role: string
  try {
    role = (await requireFileAccess(db, caller.accountId, row.file_id, 'read')).role
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw notFound()
    throw error
  }
  const who = { accountId: caller.accountId, email: caller.email, isOwner: role === 'owner' }
  const rights = accessLists.rights(accessLists.fromRow(row), row.author_id, who)
  if (!rights.read) throw notFound()
  return { row, rights }
}

export type ThumbnailEntry = Omit<StoredThumbnail, 'bytes'> & { configuration: string }

/**
 * Which of a file's configurations the caller may see have a thumbnail, with its sha256 (the GET's
 * ETag), so a client asks only for those and knows when one changed: one small row per thumbnail.
 */
export async function listThumbnails(
  ctx: AppContext,
  caller: ItemCaller,
  fileId: string,
): Promise<ThumbnailEntry[]> {
  const db = ctx.db.kysely
  const { role } = await requireFileAccess(db, caller.accountId, fileId, 'read')
  const who = { accountId: caller.accountId, email: caller.email, isOwner: role === 'owner' }
  const rows = await db
    .selectFrom('configuration_thumbnails as t')
    .innerJoin('configurations as c', 'c.id', 't.configuration_id')
    .select(['c.id', 'c.author_id', 'c.read_permissions', 'c.write_permissions'])
    .select(['t.content_type', 't.width', 't.height', 't.size', 't.sha256'])
    .where('c.file_id', '=', fileId)
    .orderBy('c.id')
    .execute()
  return rows
    .filter((row) => accessLists.rights(accessLists.fromRow(row), row.author_id, who).read)
    .map((row) => ({
      configuration: row.id,
      contentType: row.content_type as ThumbnailType,
      width: Number(row.width),
      height: Number(row.height),
      size: Number(row.size),
      sha256: row.sha256,
    }))
}

export async function readThumbnail(
  ctx: AppContext,
  caller: ItemCaller,
  id: string,
): Promise<StoredThumbnail> {
  const db = ctx.db.kysely
  await readable(db, caller, id)
  const stored = await db
    .selectFrom('configuration_thumbnails')
    .select(['content_type', 'width', 'height', 'size', 'sha256', 'bytes'])
    .where('configuration_id', '=', id)
    .executeTakeFirst()
  if (!stored) throw new AppError('NOT_FOUND', `Configuration ${id} has no thumbnail.`)
  return {
    contentType: stored.content_type as ThumbnailType,
    width: Number(stored.width),
    height: Number(stored.height),
    size: Number(stored.size),
    sha256: stored.sha256,
    bytes: Buffer.from(stored.bytes),
  }
}

/** The file of configuration `id` and its owner, who pays for its thumbnail; neither ever changes. */
async function payerOf(db: Executor, id: string): Promise<{ fileId: string; ownerId: string }> {
  const row = await db
    .selectFrom('configurations as c')
    .innerJoin('files as f', 'f.id', 'c.file_id')
    .select(['c.file_id', 'f.owner_id'])
    .where('c.id', '=', id)
    .executeTakeFirst()
  if (!row) throw new AppError('NOT_FOUND', `No configuration ${id}.`)
  return { fileId: row.file_id, ownerId: row.owner_id }
}

/** The size of the thumbnail `id` has now (0: none), what a new one replaces in the quota. */
async function storedSize(tx: Tx, id: string): Promise<number> {
  const row = await tx
    .selectFrom('configuration_thumbnails')
    .select('size')
    .where('configuration_id', '=', id)
    .executeTakeFirst()
  return Number(row?.size ?? 0)
}

/**
 * Stores (or replaces) the thumbnail of a configuration the caller may change. Locks in the files'
 * order (files' locks.ts): the owner's quota, then the configuration's own lock (the one its updates
 * and its deletion take), then its file's, so neither can go meanwhile. The write and the quota check
 * that may refuse it are one transaction: refused, nothing is stored.
 */
export async function writeThumbnail(
  ctx: AppContext,
  caller: ItemCaller,
  id: string,
  body: { bytes: Buffer; contentType: string },
): Promise<Omit<StoredThumbnail, 'bytes'>> {
  const payer = await payerOf(ctx.db.kysely, id)
  return ctx.db.kysely.transaction().execute(async (tx) => {
    await lockAccountQuota(ctx, tx, payer.ownerId)
    await lockResource(ctx.db, tx, `tessera.configuration.${id}`)
    await lockFile(ctx.db, tx, payer.fileId)
    const { row, rights } = await readable(tx, caller, id)
    // A viewer: 403 (the role's); a link session: 403 LINK_READ_ONLY.
    await requireFileAccess(tx, caller.accountId, row.file_id, 'write')
    if (!rights.write) {
      throw new AppError('FORBIDDEN', "The configuration's writePermissions do not include you.")
    }
    refuseLockedByOther(row, caller)
    return putThumbnail(ctx, tx, { id, ownerId: payer.ownerId, accountId: caller.accountId }, body)
  })
}

/**
 * Stores the thumbnail of configuration `id` in `tx` and checks the owner's quota (413 rolls `tx`
 * back). The caller has checked the right to change the configuration and holds the owner's quota
 * lock (lockAccountQuota), taken before any other in `tx`.
 */
export async function putThumbnail(
  ctx: AppContext,
  tx: Tx,
  who: { id: string; ownerId: string; accountId: string },
  body: { bytes: Buffer; contentType: string },
): Promise<Omit<StoredThumbnail, 'bytes'>> {
  const { id } = who
  const image = checkThumbnail(body.bytes, body.contentType)
  const size = body.bytes.length
  const replaced = await storedSize(tx, id)
  const columns = {
    content_type: image.type,
    width: image.width,
    height: image.height,
    size,
    sha256: createHash('sha256').update(body.bytes).digest('hex'),
    bytes: body.bytes,
    updated_at: Date.now(),
    updated_by: who.accountId,
  }
  await tx
    .insertInto('configuration_thumbnails')
    .values({ configuration_id: id, ...columns })
    .onConflict((conflict) => conflict.column('configuration_id').doUpdateSet(columns))
    .execute()
  const what = `This thumbnail (${size} bytes${replaced ? `, replacing one of ${replaced}` : ''})`
  await checkAccountQuota(ctx, tx, who.ownerId, { what, growth: size - replaced })
  const { content_type: contentType, width, height, sha256 } = columns
  return { contentType, width, height, size, sha256 }
}
