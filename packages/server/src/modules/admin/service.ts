// What operators do to accounts beyond one module: changing an e-mail also rewrites the file
// records that mirror it (their `roles` and `favoritedBy`), in the same transaction.
import type { AppContext } from '../../platform/context.ts'
import { awaitRowChangesSeen } from '../../platform/db/index.ts'
import { type Account, findAccount, updateEmail } from '../accounts/index.ts'
import { refreshRolesOfAccount } from '../files/index.ts'
import { setAccountDisabled } from '../sessions/index.ts'

export async function setAccountEmail(ctx: AppContext, accountId: string, email: string): Promise<Account> {
  const account = await ctx.db.kysely.transaction().execute(async (tx) => {
    const changed = await updateEmail(tx, accountId, email)
    await refreshRolesOfAccount(ctx.db, tx, accountId)
    return changed
  })
  // Every process's caches of the account and of listings showing its e-mail have dropped them.
  await awaitRowChangesSeen(ctx.db, ctx.log)
  return account
}

/**
 * Disables (ending its session at once) or enables an account, as the administrator `actorId`;
 * undefined when there is none. 409 LAST_ADMIN when no enabled administrator would remain.
 */
export async function setDisabled(
  ctx: AppContext,
  actorId: string,
  accountId: string,
  disabled: boolean,
): Promise<Account | undefined> {
  if (!/^[0-9a-f]{24}$/.test(accountId)) return undefined
  await setAccountDisabled(ctx, accountId, disabled, { byAdmin: actorId })
  return findAccount(ctx, accountId)
}
