// TESSERA_ACCOUNT_QUOTA_BYTES: the bytes of uploaded files one account owns, the current revision of
// each file plus the earlier revisions kept (TESSERA_FILE_REVISIONS_KEPT). What conversion derives
// (optimized GLB, thumbnail) is not counted: it is bounded by the original and dropped with it.
// Checked in the upload's transaction, once the new revision is written and older ones pruned: an
// upload that ends past the quota rolls back (its staged blob is discarded) with 413 QUOTA_EXCEEDED.
import type { AppContext } from '../../../platform/context.ts'
import { type Executor, lockResource, type Tx } from '../../../platform/db/index.ts'
import { AppError } from '../../../platform/errors.ts'

/** Bytes of the files `accountId` owns, kept revisions included. */
async function storedFileBytes(db: Executor, accountId: string): Promise<number> {
  const current = await db
    .selectFrom('files')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size'), eb.lit(0)).as('n'))
    .where('owner_id', '=', accountId)
    .executeTakeFirst()
  const kept = await db
    .selectFrom('file_revisions as r')
    .innerJoin('files as f', 'f.id', 'r.file_id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('r.size'), eb.lit(0)).as('n'))
    .where('f.owner_id', '=', accountId)
    .where('r.pruned_at', 'is', null)
    .executeTakeFirst()
  return Number(current?.n ?? 0) + Number(kept?.n ?? 0)
}

/**
 * First in an upload's transaction (before the path lock, see locks.ts): uploads of one account
 * queue here, so two of them cannot both fit under the quota on their own and together pass it.
 */
export async function lockAccountQuota(ctx: AppContext, tx: Tx, accountId: string): Promise<void> {
  if (ctx.config.accountQuotaBytes > 0) await lockResource(ctx.db, tx, `tessera.quota.files.${accountId}`)
}

/** 413 QUOTA_EXCEEDED when the account now stores more than its quota (the upload then rolls back). */
export async function checkAccountQuota(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  uploaded: number,
): Promise<void> {
  const quota = ctx.config.accountQuotaBytes
  if (quota <= 0) return
  const used = await storedFileBytes(tx, accountId)
  if (used <= quota) return
  throw new AppError(
    'QUOTA_EXCEEDED',
    `This upload (${uploaded} bytes) would bring the account's stored files to ${used} bytes, ` +
      `past its quota of ${quota} bytes (TESSERA_ACCOUNT_QUOTA_BYTES). Delete files or earlier ` +
      'revisions first.',
  )
}
