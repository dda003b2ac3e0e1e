// SQL of the accounts module: accounts and the failed-login counters.
import { type Insertable, type Selectable, sql } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type { AccountsTable } from './tables.ts'

export type AccountRow = Selectable<AccountsTable>

export function insertAccount(db: Executor, row: Insertable<AccountsTable>): Promise<unknown> {
  return db.insertInto('accounts').values(row).execute()
}

export function findAccountById(db: Executor, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
}

export function findAccountByUsername(db: Executor, username: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst()
}

export function findAccountByEmail(db: Executor, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst()
}

export function findAccountsByEmails(db: Executor, emails: string[]): Promise<AccountRow[]> {
  if (emails.length === 0) return Promise.resolve([])
  return db.selectFrom('accounts').selectAll().where('email', 'in', emails).execute()
}

export function listAccounts(db: Executor): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().orderBy('id').execute()
}

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Tokens are valid from the millisecond after a revocation at `now`: a token signed in that same
 * millisecond may have been signed before it (an SSO token minted just before a disable), and
 * `iat_ms` cannot tell. A token meant to outlive the revocation is signed after it (changes.ts).
 */
export const validAfter = (now: number): number => now + 1

export async function setAccountDisabled(db: Executor, id: string, disabled: boolean, now: number) {
  const result = await db
    .updateTable('accounts')
    // Disabling also revokes every auth token issued so far: enabling again does not revive them.
    .set(
      disabled
        ? { disabled: 1, updated_at: now, tokens_valid_after: validAfter(now) }
        : { disabled: 0, updated_at: now },
    )
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** IDs of the enabled administrators. */
export async function enabledAdminIds(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('accounts')
    .select('id')
    .where('is_admin', '=', 1)
    .where('disabled', '=', 0)
    .execute()
  return rows.map((row) => row.id)
}

export function findLoginFailures(db: Executor, key: string) {
  return db.selectFrom('login_failures').selectAll().where('key', '=', key).executeTakeFirst()
}

/**
 * Reserves one attempt under `key` in a single statement: a fresh window starts at 1, a running one
 * counts up unless it already holds `limit`. Answers false (nothing written) when the limit is
 * reached. The upsert locks the row until the caller's transaction ends (PostgreSQL) and SQLite
 * writes one transaction at a time, so concurrent reservations never overshoot the limit.
 */
export async function reserveLoginAttempt(
  db: Executor,
  key: string,
  limit: number,
  now: number,
  windowStartAfter: number,
): Promise<{ count: number; windowStart: number } | null> {
  const result = await sql<{ count: number | string; window_start: number | string }>`
    insert into login_failures (key, window_start, count) values (${key}, ${now}, 1)
    on conflict (key) do update set
      window_start = case when login_failures.window_start <= ${windowStartAfter} then ${now}
                          else login_failures.window_start end,
      count = case when login_failures.window_start <= ${windowStartAfter} then 1
                   else login_failures.count + 1 end
    where login_failures.window_start <= ${windowStartAfter} or login_failures.count < ${limit}
    returning count, window_start`.execute(db)
  const row = result.rows[0]
  return row ? { count: Number(row.count), windowStart: Number(row.window_start) } : null
}

/** Gives back a reservation (a login that succeeded does not count as a failure). */
export function releaseLoginAttempt(db: Executor, key: string) {
  return db
    .updateTable('login_failures')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('key', '=', key)
    .where('count', '>', 0)
    .execute()
}

/** Housekeeping: counters whose window ended before `before` count for nothing. */
export function deleteLoginFailuresBefore(db: Executor, before: number) {
  return db.deleteFrom('login_failures').where('window_start', '<=', before).execute()
}

export function clearLoginFailures(db: Executor, key: string) {
  return db.deleteFrom('login_failures').where('key', '=', key).execute()
}

export function listAccountsAfter(
  db: Executor,
  afterId: string | undefined,
  limit: number,
): Promise<AccountRow[]> {
  let query = db.selectFrom('accounts').selectAll().orderBy('id').limit(limit)
  if (afterId !== undefined) query = query.where('id', '>', afterId)
  return query.execute()
}

/** A new password revokes every auth token issued up to `now` (validAfter). */
export async function setPasswordHash(db: Executor, id: string, passwordHash: string, now: number) {
  const result = await db
    .updateTable('accounts')
    .set({ password_hash: passwordHash, updated_at: now, tokens_valid_after: validAfter(now) })
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function setEmail(db: Executor, id: string, email: string, now: number) {
  const result = await db
    .updateTable('accounts')
    .set({ email, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
