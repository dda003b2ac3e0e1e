// SQL of the accounts module: accounts and the failed-login counters.
import type { Executor } from '../../platform/db/index.ts'
import type { AccountsTable } from '../../platform/db/schema.ts'

export type AccountRow = AccountsTable

export function insertAccount(db: Executor, row: AccountRow): Promise<unknown> {
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

export async function setAccountDisabled(db: Executor, id: string, disabled: boolean, now: number) {
  const result = await db
    .updateTable('accounts')
    .set({ disabled: disabled ? 1 : 0, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export function findLoginFailures(db: Executor, key: string) {
  return db.selectFrom('login_failures').selectAll().where('key', '=', key).executeTakeFirst()
}

export function putLoginFailures(db: Executor, key: string, windowStart: number, count: number) {
  return db
    .insertInto('login_failures')
    .values({ key, window_start: windowStart, count })
    .onConflict((oc) => oc.column('key').doUpdateSet({ window_start: windowStart, count }))
    .execute()
}

export function clearLoginFailures(db: Executor, key: string) {
  return db.deleteFrom('login_failures').where('key', '=', key).execute()
}
