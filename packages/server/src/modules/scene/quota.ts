// TESSERA_ACCOUNT_MAX_ATTRIBUTE_BYTES: the scene attribute bytes (names plus JSON values, as the
// per-file totals count them) over every file one account owns. The file's owner pays, whoever
// writes: an editor's writes count toward the owner's quota, as the file's bytes do.
import type { AppContext } from '../../platform/context.ts'
import { lockResource, type Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'

/** 413 QUOTA_EXCEEDED when adding `bytesDelta` takes the owner's attributes past the quota. */
export async function checkAttributeQuota(
  ctx: AppContext,
  tx: Tx,
  ownerId: string,
  bytesDelta: number,
): Promise<void> {
  const quota = ctx.config.accountMaxAttributeBytes
  if (quota <= 0 || bytesDelta <= 0) return
  // Writes of one owner that grow their attributes queue here (after their file's totals row, the
  // only other lock they hold), so two cannot each fit alone and pass the quota together.
  await lockResource(ctx.db, tx, `tessera.quota.attributes.${ownerId}`)
  const row = await tx
    .selectFrom('scene_attribute_totals as t')
    .innerJoin('files as f', 'f.id', 't.file_id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('t.bytes'), eb.lit(0)).as('n'))
    .where('f.owner_id', '=', ownerId)
    .executeTakeFirst()
  const used = Number(row?.n ?? 0)
  if (used + bytesDelta <= quota) return
  throw new AppError(
    'QUOTA_EXCEEDED',
    `This write adds ${bytesDelta} bytes to the ${used} bytes of scene attributes the file's owner ` +
      `stores, past the quota of ${quota} bytes (TESSERA_ACCOUNT_MAX_ATTRIBUTE_BYTES).`,
  )
}
