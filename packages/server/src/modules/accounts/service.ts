// Accounts: creation (CLI and first start), login with argon2id and a failed-login limit.
import { randomBytes } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'
import type { AppContext } from '../../platform/context.ts'
import type { Executor } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { type RateLimitState, rateLimitListFields } from '../../platform/rate-limit-headers.ts'
import { afterSuccess, failureBudgets, releaseLoginAttempt, reserveLoginAttempt } from './login-budgets.ts'
import * as repo from './repository.ts'

export interface Account {
  id: string
  email: string
  username: string
  isAdmin: boolean
  disabled: boolean
  created: string
  /** Epoch ms: auth tokens issued before it are refused (TOKEN_REVOKED). Not in API answers. */
  tokensValidAfter: number
}

export function toAccount(row: repo.AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    username: row.username,
    isAdmin: row.is_admin === 1,
    disabled: row.disabled === 1,
    created: new Date(row.created_at).toISOString(),
    tokensValidAfter: Number(row.tokens_valid_after),
  }
}

const USERNAME = /^[a-z0-9][a-z0-9._-]{0,63}$/
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{1,63}$/
const MIN_PASSWORD_LENGTH = 10

export interface NewAccount {
  email: string
  username: string
  password: string
  admin?: boolean
}

/** Usernames and e-mails are case-insensitive: stored and compared in lower case. */
function normalize(value: string): string {
  return value.trim().toLowerCase()
}

/** The e-mail as stored (lower case); 400 when it is not an e-mail address. */
export function checkedEmail(raw: string): string {
  const email = normalize(raw)
  if (!EMAIL.test(email) || email.length > 254)
    throw new AppError('VALIDATION_FAILED', 'email is not an e-mail address')
  return email
}

/** The rule every new password meets (creation, change, reset). */
export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `password must have at least ${MIN_PASSWORD_LENGTH} characters`)
  }
}

export async function createAccount(ctx: AppContext, input: NewAccount): Promise<Account> {
  const email = checkedEmail(input.email)
  const username = normalize(input.username)
  if (!USERNAME.test(username)) {
    throw new AppError(
      'VALIDATION_FAILED',
      'username must be 1-64 of a-z 0-9 . _ - and start with a letter or digit',
    )
  }
  checkNewPassword(input.password)
  const now = Date.now()
  const row = {
    id: newId(now),
    email,
    username,
    password_hash: await hash(input.password),
    is_admin: input.admin ? 1 : 0,
    disabled: 0,
    created_at: now,
    updated_at: now,
    tokens_valid_after: 0,
  }
  return ctx.db.kysely.transaction().execute(async (tx) => {
    if (await repo.findAccountByUsername(tx, username)) throw new AppError('CONFLICT', 'username is taken')
    if (await repo.findAccountByEmail(tx, email)) throw new AppError('CONFLICT', 'email is taken')
    await repo.insertAccount(tx, row)
    return toAccount(row)
  })
}

/** On a first start with no account: an admin with a random one-time password (printed once). */
export async function ensureInitialAdmin(
  ctx: AppContext,
): Promise<{ account: Account; password: string } | null> {
  if ((await repo.countAccounts(ctx.db.kysely)) > 0) return null
  const password = randomBytes(18).toString('base64url')
  try {
    const account = await createAccount(ctx, {
      email: 'admin@localhost.localdomain',
      username: 'admin',
      password,
      admin: true,
    })
    return { account, password }
  } catch (error) {
    // Another process won the race to create the first account.
    if (error instanceof AppError && error.code === 'CONFLICT') return null
    throw error
  }
}

export async function findAccount(ctx: AppContext, id: string): Promise<Account | undefined> {
  const row = await repo.findAccountById(ctx.db.kysely, id)
  return row ? toAccount(row) : undefined
}

export async function findAccountByLogin(
  ctx: AppContext,
  idOrUsernameOrEmail: string,
): Promise<Account | undefined> {
  const key = idOrUsernameOrEmail.trim()
  const row =
    (await repo.findAccountById(ctx.db.kysely, key)) ??
    (await repo.findAccountByUsername(ctx.db.kysely, normalize(key))) ??
    (await repo.findAccountByEmail(ctx.db.kysely, normalize(key)))
  return row ? toAccount(row) : undefined
}

export async function findAccountsByEmails(ctx: AppContext, emails: string[]): Promise<Account[]> {
  return (await repo.findAccountsByEmails(ctx.db.kysely, emails.map(normalize))).map(toAccount)
}

export async function listAccounts(ctx: AppContext): Promise<Account[]> {
  return (await repo.listAccounts(ctx.db.kysely)).map(toAccount)
}

/**
 * Sets the disabled flag inside the caller's transaction; answers whether it changed. Disabling as a
 * whole (ending the sessions, freeing licenses) is the sessions module's `setAccountDisabled`.
 */
export function markAccountDisabled(
  tx: Executor,
  id: string,
  disabled: boolean,
  now: number,
): Promise<boolean> {
  return repo.setAccountDisabled(tx, id, disabled, now)
}

/**
 * The last-admin rule, inside the caller's transaction and under the lock every disabling takes
 * (sessions' setAccountDisabled): disabling `targetId` must leave an enabled administrator, and
 * the acting administrator must still be one. Two admins disabling each other at once are thereby
 * serialized: the second finds only itself (now disabled) and the first's target left.
 */
export async function checkAdminMayDisable(tx: Executor, targetId: string, actorId: string): Promise<void> {
  const admins = await repo.enabledAdminIds(tx)
  if (!admins.some((id) => id !== targetId)) {
    throw new AppError('LAST_ADMIN', 'This would leave no enabled administrator.')
  }
  if (!admins.includes(actorId)) {
    throw new AppError('FORBIDDEN', 'You are no longer an enabled administrator.')
  }
}

// A real argon2id hash of a random password: verifying against it when the user does not exist
// takes as long as a real check, so response time does not reveal which usernames exist.
let dummyHash: Promise<string> | undefined
export function timingDummy(): Promise<string> {
  dummyHash ??= hash(randomBytes(16).toString('hex'))
  return dummyHash
}

interface LoginResult {
  account: Account
  token: string
  /** What is left of each failed-login budget: the answer's RateLimit fields. */
  rateLimit: RateLimitState[]
}

/**
 * The account a sign-in names: its username, or its e-mail (no username holds an "@", so the two
 * never collide). Both are stored in lower case, so the match ignores case.
 */
function findLoginAccount(db: Executor, typed: string) {
  if (typed.includes('@')) return repo.findAccountByEmail(db, typed)
  return repo.findAccountByUsername(db, typed)
}

export async function login(ctx: AppContext, input: { username: string; password: string; ip: string }) {
  const typed = normalize(input.username)
  const now = Date.now()
  // Whether the name exists decides the budgets (a made-up name never spends a real account's); a
  // real one spends its account's, whichever of its names was typed.
  const row = await findLoginAccount(ctx.db.kysely, typed)
  const budgets = failureBudgets(row?.id, typed, input.ip)
  const left = await reserveLoginAttempt(ctx, budgets, now)
  const passwordOk = await verify(row?.password_hash ?? (await timingDummy()), input.password)
  // A failure keeps its reservation: that is the record of the failed attempt.
  if (!row || !passwordOk || row.disabled === 1) {
    throw new AppError('INVALID_CREDENTIALS', 'Wrong username or password.', rateLimitListFields(left))
  }
  await releaseLoginAttempt(ctx, budgets)
  const token = await ctx.tokens.signAuthToken(row.id)
  return { account: toAccount(row), token, rateLimit: afterSuccess(left) } satisfies LoginResult
}
