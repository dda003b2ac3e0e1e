// Sharing a file: the owner gives accounts a role on it; the record's `roles` mirror the shares.
// Revoking a share takes the account's star of the file with it (its `favoritedBy` only names readers).
import type { Static } from 'typebox'
import { emitEvent } from '../../../events/index.ts'
import type { AppContext } from '../../../platform/context.ts'
import type { Db, Tx } from '../../../platform/db/index.ts'
import { AppError } from '../../../platform/errors.ts'
import type { InCommit } from '../../../platform/idempotency.ts'
import { findAccountsByEmails } from '../../accounts/index.ts'
import { fileReaderIds, requireFileAccess } from '../access.ts'
import { deleteFavourite, filesStarredBy } from '../favourites/repository.ts'
import { listingsChanged } from '../listing/changes.ts'
import { lockFile } from '../locks.ts'
import { refreshRecordLists } from '../record-lists.ts'
import * as repo from '../repository.ts'
import type { ShareRole } from '../schemas.ts'
import { type FileViewShape, recordOf, viewOf } from '../service.ts'

export type ShareRoleName = Static<typeof ShareRole>

async function shareTarget(ctx: AppContext, ownerEmail: string, email: string) {
  const [account] = await findAccountsByEmails(ctx, [email])
  if (!account) throw new AppError('NOT_FOUND', `No account has the e-mail ${email}.`)
  if (account.email === ownerEmail) {
    throw new AppError('VALIDATION_FAILED', 'The owner of a file always has every right on it.')
  }
  return account
}

/**
 * `file_shared` / `file_unshared` in the share's transaction, with the record after it: to the owner,
 * every reader, and the account whose role changed (a revoked one is no reader any more, yet its
 * "Shared with me" must hear that the file left it).
 */
async function emitShareEvent(
  ctx: AppContext,
  tx: Tx,
  event: 'file_shared' | 'file_unshared',
  file: { fileId: string; ownerId: string; targetId: string },
): Promise<void> {
  const readers = await fileReaderIds(tx, file.fileId)
  await emitEvent(ctx, tx, {
    event,
    fileId: file.fileId,
    fileOwnerId: file.ownerId,
    readerAccountIds: [...readers, file.targetId],
    data: await recordOf(tx, file.fileId, file.ownerId),
  })
}

/**
 * A new share past TESSERA_FILE_MAX_SHARES is refused (under the file's lock, so concurrent shares
 * count one after another); changing the role of an existing share always passes.
 */
async function refuseNewShareAtCap(ctx: AppContext, tx: Tx, fileId: string, targetId: string): Promise<void> {
  const shares = await repo.listShares(tx, fileId)
  const max = ctx.config.fileMaxShares
  if (shares.length >= max && !shares.some((share) => share.account_id === targetId)) {
    throw new AppError(
      'SHARE_LIMIT_REACHED',
      `This file is shared with ${shares.length} accounts; the limit is ${max} (TESSERA_FILE_MAX_SHARES). ` +
        'Stop sharing it with one first.',
    )
  }
}

/**
 * Owner only: gives (or changes) an account's role on the file. `inCommit`: called last in the
 * transaction with the file as answered (Idempotency-Key).
 */
export async function shareFile(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  input: { email: string; role: ShareRoleName },
  inCommit?: InCommit<FileViewShape>,
): Promise<FileViewShape> {
  const { db } = ctx
  // Access first, so that a stranger or a reader learns nothing about which e-mails exist.
  const { file } = await requireFileAccess(db.kysely, accountId, fileId, 'owner')
  const target = await shareTarget(ctx, file.owner_email, input.email)
  const shared = await db.kysely.transaction().execute(async (tx) => {
    await lockFile(db, tx, fileId)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    await refuseNewShareAtCap(ctx, tx, fileId, target.id)
    await repo.upsertShare(tx, {
      file_id: fileId,
      account_id: target.id,
      role: input.role,
      created_at: Date.now(),
    })
    await refreshRecordLists(tx, fileId)
    await emitShareEvent(ctx, tx, 'file_shared', { fileId, ownerId: accountId, targetId: target.id })
    const view = await viewOf(tx, fileId, accountId)
    await inCommit?.(tx, view)
    return view
  })
  await listingsChanged(ctx)
  return shared
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
  const view = await db.kysely.transaction().execute(async (tx) => {
    await lockFile(db, tx, fileId)
    await requireFileAccess(tx, accountId, fileId, 'owner')
    if (!(await repo.deleteShare(tx, fileId, target.id))) {
      throw new AppError('NOT_FOUND', `The file is not shared with ${target.email}.`)
    }
    // No litter: a star of an account that can no longer read the file goes with its share.
    await deleteFavourite(tx, fileId, target.id)
    await refreshRecordLists(tx, fileId)
    await emitShareEvent(ctx, tx, 'file_unshared', { fileId, ownerId: accountId, targetId: target.id })
    return viewOf(tx, fileId, accountId)
  })
  await listingsChanged(ctx)
  return view
}

/**
 * After an account's e-mail changed (in the caller's transaction): the `roles` of every file
 * shared with it and the `favoritedBy` of every file it starred show the new e-mail. Files are
 * locked in ID order, the lock order of files.
 */
export async function refreshRolesOfAccount(db: Db, tx: Tx, accountId: string): Promise<void> {
  const shared = await repo.filesSharedWith(tx, accountId)
  const starred = await filesStarredBy(tx, accountId)
  for (const fileId of [...new Set([...shared, ...starred])].sort()) {
    await lockFile(db, tx, fileId)
    await refreshRecordLists(tx, fileId)
  }
}
