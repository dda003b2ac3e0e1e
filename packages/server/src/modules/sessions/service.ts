// Sessions and the license pool. Each valid session holds one license; a new session of the same
// account takes over the old one's license at once. Acquisition runs under a lock on the pool so
// that, on either dialect and across processes, the pool is never over-committed.
import type { AppContext } from '../../platform/context.ts'
import { awaitRowChangesSeen, lockResource } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { newId } from '../../platform/ids.ts'
import { checkAdminMayDisable, markAccountDisabled } from '../accounts/index.ts'
import * as repo from './repository.ts'
import { authRowCache } from './session-cache.ts'

export interface CreatedSession {
  sessionId: string
  token: string
  expiresAt: number
  /** A valid session of the same account was superseded by this one. */
  superseded: boolean
}

/**
 * A new session of the account, holding a license. `inCommit`: called last in the transaction,
 * under the pool lock, with the session as answered (Idempotency-Key).
 */
export async function createSession(
  ctx: AppContext,
  accountId: string,
  inCommit?: InCommit<CreatedSession>,
): Promise<CreatedSession> {
  const { db, config } = ctx
  const cache = authRowCache(ctx)
  // Signed before the pool lock is taken, which every session creation waits for: a refused
  // request wastes one signature, a granted one holds the lock no longer than its rows take.
  const sessionId = newId()
  const token = await ctx.tokens.signSessionToken(sessionId, accountId)
  const created = await db.kysely.transaction().execute(async (tx) => {
    await lockResource(db, tx, 'tessera.licenses')
    // Under the pool lock that disabling also takes: an account disabled since its auth token was
    // checked gets no session (and no license).
    if (await repo.isAccountDisabled(tx, accountId)) {
      throw new AppError('ACCOUNT_DISABLED', 'The account is disabled.')
    }
    const now = Date.now()
    const superseded = (await repo.supersedeValidSessions(tx, accountId, now)).length > 0
    const inUse = await repo.countValidSessions(tx, now)
    if (inUse >= config.licenses) {
      // Rolling back keeps the account's previous session (and its license) as it was.
      throw new AppError('NO_LICENSE_AVAILABLE', `All ${config.licenses} license tokens are in use.`)
    }
    const expiresAt = now + config.sessionTtlMs
    await repo.insertSession(tx, {
      id: sessionId,
      account_id: accountId,
      created_at: now,
      expires_at: expiresAt,
      ends_at: null,
      superseded_at: null,
    })
    const session = { sessionId, token, expiresAt, superseded }
    await inCommit?.(tx, session)
    return session
  })
  // The NOTIFY of the superseded rows reaches this process too, but a request may come first.
  cache?.forgetAccount(accountId)
  // Answered once every process has applied the change: a client that uses the old session
  // anywhere after this answer is refused.
  if (created.superseded) await awaitRowChangesSeen(db, ctx.log)
  return created
}

/** Keep-alive: the session stays valid for another TTL (never past a scheduled deletion). */
export async function keepAlive(ctx: AppContext, sessionId: string): Promise<number> {
  const now = Date.now()
  const expiresAt = now + ctx.config.sessionTtlMs
  if (!(await repo.extendSession(ctx.db.kysely, sessionId, expiresAt, now))) {
    throw new AppError('SESSION_INVALID', 'The session is no longer valid.')
  }
  authRowCache(ctx)?.forgetSession(sessionId)
  await awaitRowChangesSeen(ctx.db, ctx.log)
  const row = await repo.findSession(ctx.db.kysely, sessionId)
  return row?.ends_at != null ? Math.min(row.ends_at, expiresAt) : expiresAt
}

/** Delete: effective after TESSERA_SESSION_DELETE_DELAY; returns when. */
export async function deleteSession(ctx: AppContext, sessionId: string): Promise<number> {
  const now = Date.now()
  if (
    !(await repo.scheduleSessionEnd(ctx.db.kysely, sessionId, now + ctx.config.sessionDeleteDelayMs, now))
  ) {
    throw new AppError('SESSION_INVALID', 'The session is no longer valid.')
  }
  authRowCache(ctx)?.forgetSession(sessionId)
  await awaitRowChangesSeen(ctx.db, ctx.log)
  const row = await repo.findSession(ctx.db.kysely, sessionId)
  return row?.ends_at ?? now
}

/** Sign-out: the session ends now and its license is free at once (no grace period). */
export async function endSessionNow(ctx: AppContext, sessionId: string): Promise<void> {
  const now = Date.now()
  const ended = await repo.scheduleSessionEnd(ctx.db.kysely, sessionId, now, now)
  authRowCache(ctx)?.forgetSession(sessionId)
  if (ended) await awaitRowChangesSeen(ctx.db, ctx.log)
}

export interface LicenseUsage {
  total: number
  inUse: number
  sessions: Array<{ username: string; created: string; validUntil: string }>
}

export async function licenseUsage(ctx: AppContext): Promise<LicenseUsage> {
  const now = Date.now()
  const rows = await repo.listValidSessions(ctx.db.kysely, now)
  return {
    total: ctx.config.licenses,
    inUse: rows.length,
    sessions: rows.map((r) => ({
      username: r.username,
      created: new Date(r.created_at).toISOString(),
      validUntil: new Date(
        r.ends_at != null ? Math.min(r.ends_at, r.expires_at) : r.expires_at,
      ).toISOString(),
    })),
  }
}

/** Removes rows that have been invalid for a week (they hold no license; kept a while for audit). */
export async function pruneSessions(ctx: AppContext): Promise<void> {
  await repo.deleteSessionsInvalidBefore(ctx.db.kysely, Date.now() - 7 * 86_400_000)
}

/**
 * Disables (or enables) an account. Disabling also ends the account's sessions in the same
 * transaction: every process's session cache hears of it at commit (session-cache.ts), so the old
 * session token is refused everywhere at once and its license is free at once (not after the
 * keep-alive lapses). `byAdmin`: an administrator's call through the API, which must leave an
 * enabled administrator (409 LAST_ADMIN); the operator's CLI is not bound by it.
 */
export async function setAccountDisabled(
  ctx: AppContext,
  id: string,
  disabled: boolean,
  options: { byAdmin?: string } = {},
): Promise<boolean> {
  const changed = await ctx.db.kysely.transaction().execute(async (tx) => {
    // The lock session creation takes: no session of this account can be created meanwhile. Every
    // disabling takes it too, which serializes the last-admin rule's check with its change.
    await lockResource(ctx.db, tx, 'tessera.licenses')
    if (disabled && options.byAdmin !== undefined) await checkAdminMayDisable(tx, id, options.byAdmin)
    const now = Date.now()
    const changed = await markAccountDisabled(tx, id, disabled, now)
    if (changed && disabled) await repo.endValidSessions(tx, id, now)
    return changed
  })
  authRowCache(ctx)?.forgetAccount(id)
  if (changed) await awaitRowChangesSeen(ctx.db, ctx.log)
  return changed
}
