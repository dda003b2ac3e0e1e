// Accounts: creation (CLI and first start), login with argon2id and a failed-login limit.
import { randomBytes } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import * as repo from './repository.ts'

export interface Account {
  id: string
  email: string
  username: string
  isAdmin: boolean
  disabled: boolean
  created: string
}

export function toAccount(row: repo.AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    username: row.username,
    isAdmin: row.is_admin === 1,
    disabled: row.disabled === 1,
    created: new Date(row.created_at).toISOString(),
  }
}

const USERNAME = /^[a-z0-9][a-z0-9._-]{0,63}$/
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{1,63}$/
export const MIN_PASSWORD_LENGTH = 10

export interface NewAccount {
  email: string
  username: string
  password: string
  admin?: boolean
}

/** Usernames and e-mails are case-insensitive: stored and compared in lower case. */
export function normalize(value: string): string {
  return value.trim().toLowerCase()
}

export async function createAccount(ctx: AppContext, input: NewAccount): Promise<Account> {
  const email = normalize(input.email)
  const username = normalize(input.username)
  if (!EMAIL.test(email) || email.length > 254)
    throw new AppError('VALIDATION_FAILED', 'email is not an e-mail address')
  if (!USERNAME.test(username)) {
    throw new AppError(
      'VALIDATION_FAILED',
      'username must be 1-64 of a-z 0-9 . _ - and start with a letter or digit',
    )
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `password must have at least ${MIN_PASSWORD_LENGTH} characters`)
  }
  const now = Date.now()
  const row: repo.AccountRow = {
    id: newId(now),
    email,
    username,
    password_hash: await hash(input.password),
    is_admin: input.admin ? 1 : 0,
    disabled: 0,
    created_at: now,
    updated_at: now,
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

export async function setDisabled(ctx: AppContext, id: string, disabled: boolean): Promise<boolean> {
  return repo.setAccountDisabled(ctx.db.kysely, id, disabled, Date.now())
}

// A real argon2id hash of a random password: verifying against it when the user does not exist
// takes as long as a real check, so response time does not reveal which usernames exist.
let dummyHash: Promise<string> | undefined
export function timingDummy(): Promise<string> {
  dummyHash ??= hash(randomBytes(16).toString('hex'))
  return dummyHash
}

/** Failed logins are limited per (username, IP) and, ten times looser, per IP alone. */
function failureKeys(username: string, ip: string): Array<{ key: string; limit: number }> {
  return [
    { key: `user:${username}|ip:${ip}`, limit: 1 },
    { key: `ip:${ip}`, limit: 10 },
  ]
}

async function checkLoginLimit(ctx: AppContext, username: string, ip: string, now: number): Promise<void> {
  const { loginMaxFailures, loginWindowMs } = ctx.config
  for (const { key, limit } of failureKeys(username, ip)) {
    const row = await repo.findLoginFailures(ctx.db.kysely, key)
    if (row && row.window_start + loginWindowMs > now && row.count >= loginMaxFailures * limit) {
      const retryAfter = Math.max(1, Math.ceil((row.window_start + loginWindowMs - now) / 1000))
      throw new AppError('TOO_MANY_REQUESTS', 'Too many failed logins; try again later.', {
        'retry-after': String(retryAfter),
      })
    }
  }
}

async function recordLoginFailure(ctx: AppContext, username: string, ip: string, now: number): Promise<void> {
  await ctx.db.kysely.transaction().execute(async (tx) => {
    for (const { key } of failureKeys(username, ip)) {
      const row = await repo.findLoginFailures(tx, key)
      const fresh = !row || row.window_start + ctx.config.loginWindowMs <= now
      await repo.putLoginFailures(tx, key, fresh ? now : row.window_start, fresh ? 1 : row.count + 1)
    }
  })
}

export interface LoginResult {
  account: Account
  token: string
}

export async function login(ctx: AppContext, input: { username: string; password: string; ip: string }) {
  const username = normalize(input.username)
  const now = Date.now()
  await checkLoginLimit(ctx, username, input.ip, now)
  const row = await repo.findAccountByUsername(ctx.db.kysely, username)
  const passwordOk = await verify(row?.password_hash ?? (await timingDummy()), input.password)
  if (!row || !passwordOk || row.disabled === 1) {
    await recordLoginFailure(ctx, username, input.ip, now)
    throw new AppError('INVALID_CREDENTIALS', 'Wrong username or password.')
  }
  await repo.clearLoginFailures(ctx.db.kysely, failureKeys(username, input.ip)[0]?.key ?? '')
  const token = await ctx.tokens.signAuthToken(row.id)
  return { account: toAccount(row), token } satisfies LoginResult
}
