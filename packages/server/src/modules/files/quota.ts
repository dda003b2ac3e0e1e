// TESSERA_ACCOUNT_QUOTA_BYTES: the bytes one account stores in the files it owns: the current
// revision of each file, the earlier revisions kept (TESSERA_FILE_REVISIONS_KEPT) and the thumbnails
// of the files' saved views (configuration_thumbnails, whoever stored them: the file's owner pays, as
// for its scene attributes). What conversion derives (optimized GLB, model thumbnail) is not counted:
// it is bounded by the original and dropped with it.
// The figure is summed in the writing transaction, after the write: a replaced thumbnail counts its
// new size only, a deleted file or view (whose thumbnails go by cascade) counts no more. A write that
// grows the figure past the quota rolls back with 413 QUOTA_EXCEEDED (an upload's staged blob is
// discarded). Lowering the quota refuses only growth: a write that shrinks or keeps the figure passes.
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource, type Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'

/** Bytes `accountId` stores: its files, their kept revisions and their views' thumbnails. */
async function storedBytes(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('files')
        .select((s) => s.fn.sum<number | string>('size').as('n'))
        .where('owner_id', '=', accountId)
        .as('current'),
      eb
        .selectFrom('file_revisions as r')
        .innerJoin('files as f', 'f.id', 'r.file_id')
        .select((s) => s.fn.sum<number | string>('r.size').as('n'))
        .where('f.owner_id', '=', accountId)
        .where('r.pruned_at', 'is', null)
        .as('kept'),
      eb
        .selectFrom('configuration_thumbnails as t')
        .innerJoin('configurations as c', 'c.id', 't.configuration_id')
        .innerJoin('files as f', 'f.id', 'c.file_id')
        .select((s) => s.fn.sum<number | string>('t.size').as('n'))
        .where('f.owner_id', '=', accountId)
        .as('thumbnails'),
    ])
    .executeTakeFirst()
  // A sum over no row is null; PostgreSQL answers a bigint sum as text.
  return Number(row?.current ?? 0) + Number(row?.kept ?? 0) + Number(row?.thumbnails ?? 0)
}

/**
 * First in a transaction that grows an account's stored bytes (uploads, thumbnails of saved views;
 * see locks.ts for the order): such writes of one account queue here, so two of them cannot both
 * fit under the quota on their own and together pass it.
 */
export async function lockAccountQuota(ctx: AppContext, tx: Tx, accountId: string): Promise<void> {
  if (ctx.config.accountQuotaBytes > 0) await lockResource(ctx.db, tx, `tessera.quota.files.${accountId}`)
}

/** What a write under the quota adds: named in the refusal; `growth` <= 0 is never refused. */
export interface QuotaCharge {
  /** "This upload (5120 bytes)", "This thumbnail (2048 bytes)". */
  what: string
  /** How much the write (already done in `tx`) changed the account's stored bytes. */
  growth: number
}

/** 413 QUOTA_EXCEEDED when the write grew the account's stored bytes past its quota (it then rolls back). */
export async function checkAccountQuota(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  charge: QuotaCharge,
): Promise<void> {
  const quota = ctx.config.accountQuotaBytes
  if (quota <= 0 || charge.growth <= 0) return
  const used = await storedBytes(tx, accountId)
  if (used <= quota) return
  throw new AppError(
    'QUOTA_EXCEEDED',
    `${charge.what} would bring the account's stored bytes (files, kept revisions and saved-view ` +
      `thumbnails) to ${used} bytes, past its quota of ${quota} bytes (TESSERA_ACCOUNT_QUOTA_BYTES). ` +
      'Delete files, earlier revisions or thumbnails first.',
  )
}
