// Share by link, the owner's side: create, rotate, revoke, read a file's link (docs/api.md, "Links").
// One link per file. Its token is answered on create and rotate only and kept as its SHA-256, the
// way GitHub and Stripe keep their tokens: the owner's `shareToken` of the file is the link's id,
// which names the link without opening it. Each change commits with the file's `share_token`
// (files' setShareLink), under the file's lock; links are never updated in place (migration 0030),
// so the row-change feed ends the link's sessions (revocations.ts).
import { createHash, randomBytes } from 'node:crypto'
import { hash } from '@node-rs/argon2'
import type { Static } from 'typebox'
import type { AppContext } from '../../platform/context.ts'
import { awaitRowChangesSeen, type Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { newId } from '../../platform/ids.ts'
import { lockFile, requireFileAccess, setShareLink } from '../files/index.ts'
import * as repo from './repository.ts'
import type { CreateLinkBody, LinkSettings } from './schemas.ts'
import type { FileLinksTable } from './tables.ts'

export type LinkSettingsShape = Static<typeof LinkSettings>
export interface CreatedLink {
  link: LinkSettingsShape
  token: string | null
}

/** Links expire at most this far ahead (every input bounded). */
const MAX_EXPIRY_MS = 366 * 24 * 3600_000

export function tokenHashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

function settingsOf(row: FileLinksTable, now = Date.now()): LinkSettingsShape {
  const expiresAt = row.expires_at === null ? null : Number(row.expires_at)
  return {
    id: row.id,
    fileId: row.file_id,
    created: new Date(Number(row.created_at)).toISOString(),
    expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    hasPassword: row.password_hash !== null,
    expired: expiresAt !== null && expiresAt <= now,
  }
}

function expiryOf(expiresAt: string | null | undefined, now: number): number | null {
  if (expiresAt === null || expiresAt === undefined) return null
  const at = Date.parse(expiresAt)
  if (!Number.isFinite(at) || at <= now || at > now + MAX_EXPIRY_MS) {
    throw new AppError('VALIDATION_FAILED', '`expiresAt` must lie in the future, at most 366 days ahead.')
  }
  return at
}

/** A fresh link row (new id, new token) for the file; the token goes back to the owner once. */
function newLink(
  fileId: string,
  accountId: string,
  kept: Pick<FileLinksTable, 'password_hash' | 'expires_at'>,
) {
  const token = randomBytes(32).toString('base64url')
  const row: FileLinksTable = {
    id: newId(),
    file_id: fileId,
    token_hash: tokenHashOf(token),
    password_hash: kept.password_hash,
    expires_at: kept.expires_at,
    created_at: Date.now(),
    created_by: accountId,
  }
  return { row, token }
}

/** Runs `change` in a transaction holding the file's lock, the caller checked as its owner. */
async function asOwner<T>(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  change: (tx: Tx) => Promise<T>,
) {
  await requireFileAccess(ctx.db.kysely, accountId, fileId, 'owner')
  return ctx.db.kysely.transaction().execute(async (tx) => {
    await lockFile(ctx.db, tx, fileId)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    return change(tx)
  })
}

/** Owner only: the file's link, 404 LINK_NOT_FOUND without one. */
export async function getLink(
  ctx: AppContext,
  accountId: string,
  fileId: string,
): Promise<LinkSettingsShape> {
  await requireFileAccess(ctx.db.kysely, accountId, fileId, 'owner')
  const row = await repo.findLinkOfFile(ctx.db.kysely, fileId)
  if (!row) throw new AppError('LINK_NOT_FOUND', 'This file has no link.')
  return settingsOf(row)
}

/**
 * Owner only: makes the file's link (409 LINK_EXISTS when it has one: rotate or revoke it). The
 * answer stored for an Idempotency-Key leaves the token out (null): the server keeps no copy of it.
 */
export async function createLink(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  input: Static<typeof CreateLinkBody>,
  inCommit?: InCommit<CreatedLink>,
): Promise<CreatedLink> {
  const now = Date.now()
  const expiresAt = expiryOf(input.expiresAt, now)
  await requireFileAccess(ctx.db.kysely, accountId, fileId, 'owner')
  const passwordHash = input.password ? await hash(input.password) : null
  return asOwner(ctx, accountId, fileId, async (tx) => {
    if (await repo.findLinkOfFile(tx, fileId)) {
      throw new AppError('LINK_EXISTS', 'This file already has a link: rotate or revoke it.')
    }
    const { row, token } = newLink(fileId, accountId, { password_hash: passwordHash, expires_at: expiresAt })
    await repo.insertLink(tx, row)
    await setShareLink(tx, fileId, row.id, row.created_at)
    const link = settingsOf(row)
    await inCommit?.(tx, { link, token: null })
    return { link, token }
  })
}

/**
 * Owner only: a new token (and id) for the file's link, with its password and expiry; the old token
 * and every link session of it end at once (every process has heard of it when this resolves).
 */
export async function rotateLink(ctx: AppContext, accountId: string, fileId: string): Promise<CreatedLink> {
  const created = await asOwner(ctx, accountId, fileId, async (tx) => {
    const old = await repo.findLinkOfFile(tx, fileId)
    if (!old) throw new AppError('LINK_NOT_FOUND', 'This file has no link.')
    await repo.deleteLinkOfFile(tx, fileId)
    const { row, token } = newLink(fileId, accountId, old)
    await repo.insertLink(tx, row)
    await setShareLink(tx, fileId, row.id, row.created_at)
    return { link: settingsOf(row), token }
  })
  await awaitRowChangesSeen(ctx.db, ctx.log)
  return created
}

/** Owner only: the link stops opening and its link sessions end at once. 404 without a link. */
export async function revokeLink(ctx: AppContext, accountId: string, fileId: string): Promise<void> {
  await asOwner(ctx, accountId, fileId, async (tx) => {
    if (!(await repo.deleteLinkOfFile(tx, fileId)))
      throw new AppError('LINK_NOT_FOUND', 'This file has no link.')
    await setShareLink(tx, fileId, '', Date.now())
  })
  await awaitRowChangesSeen(ctx.db, ctx.log)
}
