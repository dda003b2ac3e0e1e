// SQL of the sessions module. A session is valid while it is not superseded, its keep-alive has
// not lapsed and its deletion (if any) has not taken effect; the predicate below is the one truth.
import { type ExpressionBuilder, sql } from 'kysely'
import { type Database, type Executor, precompiled } from '../../platform/db/index.ts'
import type { SessionsTable } from './tables.ts'

export type SessionRow = SessionsTable

function validAt(now: number) {
  return (eb: ExpressionBuilder<Database, 'sessions'>) =>
    eb.and([
      eb('sessions.superseded_at', 'is', null),
      eb('sessions.expires_at', '>', now),
      eb.or([eb('sessions.ends_at', 'is', null), eb('sessions.ends_at', '>', now)]),
    ])
}

export function insertSession(db: Executor, row: SessionRow) {
  return db.insertInto('sessions').values(row).execute()
}

/** Supersedes the account's valid sessions; returns their IDs. */
export async function supersedeValidSessions(
  db: Executor,
  accountId: string,
  now: number,
): Promise<string[]> {
  const rows = await db
    .updateTable('sessions')
    .set({ superseded_at: now })
    .where('account_id', '=', accountId)
    .where(validAt(now))
    .returning('id')
    .execute()
  return rows.map((row) => row.id)
}

/** Ends the account's valid sessions now (their licenses are free at once); returns how many. */
export async function endValidSessions(db: Executor, accountId: string, now: number): Promise<number> {
  const result = await db
    .updateTable('sessions')
    .set({ ends_at: now })
    .where('account_id', '=', accountId)
    .where(validAt(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

export async function countValidSessions(db: Executor, now: number): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where(validAt(now))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export function listValidSessions(db: Executor, now: number) {
  return db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select([
      'sessions.id',
      'sessions.created_at',
      'sessions.expires_at',
      'sessions.ends_at',
      'accounts.username',
    ])
    .where(validAt(now))
    .orderBy('sessions.created_at')
    .execute()
}

const sessionWithAccount = precompiled((db, sessionId: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select([
      'sessions.id',
      'sessions.account_id',
      'sessions.expires_at',
      'sessions.ends_at',
      'sessions.superseded_at',
      'accounts.email',
      'accounts.username',
      'accounts.is_admin',
      'accounts.disabled',
      'accounts.tokens_valid_after',
    ])
    .where('sessions.id', '=', sessionId),
)

/** The per-request lookup: the session with its account, one indexed read. */
export async function findSessionWithAccount(db: Executor, sessionId: string) {
  const rows = await sessionWithAccount(db, sessionId)
  return rows[0]
}

export async function extendSession(db: Executor, sessionId: string, expiresAt: number, now: number) {
  const result = await db
    .updateTable('sessions')
    .set({ expires_at: expiresAt })
    .where('id', '=', sessionId)
    .where(validAt(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Schedules the end of a session; an earlier scheduled end is kept. */
export async function scheduleSessionEnd(db: Executor, sessionId: string, endsAt: number, now: number) {
  const result = await db
    .updateTable('sessions')
    .set({ ends_at: sql<number>`coalesce(case when ends_at < ${endsAt} then ends_at end, ${endsAt})` })
    .where('id', '=', sessionId)
    .where(validAt(now))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function isAccountDisabled(db: Executor, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('disabled')
    .where('id', '=', accountId)
    .executeTakeFirst()
  return row?.disabled === 1
}

export function findSession(db: Executor, sessionId: string) {
  return db.selectFrom('sessions').selectAll().where('id', '=', sessionId).executeTakeFirst()
}

/** Housekeeping: rows that stopped being valid long ago are of no use to anyone. */
export function deleteSessionsInvalidBefore(db: Executor, before: number) {
  return db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([eb('superseded_at', '<', before), eb('expires_at', '<', before), eb('ends_at', '<', before)]),
    )
    .execute()
}
