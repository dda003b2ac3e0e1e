// Changing accounts after creation: passwords (by the user, or reset by an operator), e-mails, and
// the paged list the admin console shows.
import { hash, verify } from '@node-rs/argon2'
import type { AppContext } from '../../platform/context.ts'
import { awaitRowChangesSeen, type Executor } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { checkPageLimit, idCursor, pageOfRows, pageStart } from '../../platform/paging.ts'
import { type RateLimitState, rateLimitListFields } from '../../platform/rate-limit-headers.ts'
import { afterSuccess, failureBudgets, releaseLoginAttempt, reserveLoginAttempt } from './login-budgets.ts'
import * as repo from './repository.ts'
import { type Account, checkedEmail, checkNewPassword, toAccount } from './service.ts'

/**
 * The signed-in user changes their password; the current one must be given. Wrong guesses count
 * against the same budget as failed logins (a stolen session must not become a password oracle).
 * The caller keeps its session: an account holds one session at a time, so no other session exists.
 * Every auth token issued before the change is revoked; the caller gets a fresh one, issued after.
 */
export async function changePassword(
  ctx: AppContext,
  accountId: string,
  input: { currentPassword: string; newPassword: string; ip: string },
): Promise<{ token: string; rateLimit: RateLimitState[] }> {
  checkNewPassword(input.newPassword)
  const row = await repo.findAccountById(ctx.db.kysely, accountId)
  if (!row) throw new AppError('NOT_FOUND', 'No such account.')
  const budgets = failureBudgets(row.id, row.username, input.ip)
  const left = await reserveLoginAttempt(ctx, budgets, Date.now())
  if (!(await verify(row.password_hash, input.currentPassword))) {
    // The reservation stays: it is the record of the failed attempt.
    throw new AppError('WRONG_PASSWORD', 'The current password is wrong.', rateLimitListFields(left))
  }
  await releaseLoginAttempt(ctx, budgets)
  const revokedAt = Date.now()
  await repo.setPasswordHash(ctx.db.kysely, accountId, await hash(input.newPassword), revokedAt)
  // Every process refuses the old tokens before the answer.
  await awaitRowChangesSeen(ctx.db, ctx.log)
  // Signed after the revocation's millisecond, so its iat_ms is not before repo.validAfter (tokens.ts).
  while (Date.now() < repo.validAfter(revokedAt)) await new Promise((r) => setTimeout(r, 1))
  return { token: await ctx.tokens.signAuthToken(accountId), rateLimit: afterSuccess(left) }
}

/** An operator sets a password (CLI); same rules as at creation. Revokes the account's auth tokens. */
export async function setPassword(ctx: AppContext, accountId: string, password: string): Promise<void> {
  checkNewPassword(password)
  const passwordHash = await hash(password)
  if (!(await repo.setPasswordHash(ctx.db.kysely, accountId, passwordHash, Date.now()))) {
    throw new AppError('NOT_FOUND', 'No such account.')
  }
  await awaitRowChangesSeen(ctx.db, ctx.log)
}

/**
 * Sets an account's e-mail in the caller's transaction (so that what mirrors e-mails, e.g. file
 * records' `roles`, changes with it). 409 when another account has it.
 */
export async function updateEmail(tx: Executor, accountId: string, rawEmail: string): Promise<Account> {
  const email = checkedEmail(rawEmail)
  const holder = await repo.findAccountByEmail(tx, email)
  if (holder && holder.id !== accountId) throw new AppError('CONFLICT', 'email is taken')
  if (!(await repo.setEmail(tx, accountId, email, Date.now()))) {
    throw new AppError('NOT_FOUND', 'No such account.')
  }
  const row = await repo.findAccountById(tx, accountId)
  if (!row) throw new AppError('NOT_FOUND', 'No such account.')
  return toAccount(row)
}

export interface AccountsPage {
  accounts: Account[]
  /** The cursor of the next page; null on the last. */
  nextCursor: string | null
}

/** Accounts in ID (= creation) order; the cursor is the last ID of a page. */
export async function listAccountsPage(
  ctx: AppContext,
  page: { cursor: string | undefined; limit: number },
): Promise<AccountsPage> {
  const limit = checkPageLimit(page.limit, 1000)
  const after = pageStart(idCursor, page.cursor)
  const rows = await repo.listAccountsAfter(ctx.db.kysely, after, limit + 1)
  const { rows: listed, nextCursor } = pageOfRows(rows, limit, idCursor, (row) => row.id)
  return { accounts: listed.map(toAccount), nextCursor }
}
