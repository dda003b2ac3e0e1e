// The rows every authenticated request needs (session + account; the account alone on token-only
// routes), kept in memory per app while the database's row-change feed covers them
// (platform/db/row-changes.ts): an update or delete of a sessions or accounts row, by this process or
// any other, drops the cached row before, or within milliseconds after, it commits; a writer answers
// only once every process's feed has applied its change (awaitRowChangesSeen, row-sync.ts). When the
// feed is down (PostgreSQL LISTEN connection lost) every request reads the rows, as without a cache.
// Validity (superseded, deleted, expired, disabled) is still judged per request from the row, so
// a session that expires by time alone is refused at its expiry.
import type { AppContext } from '../../platform/context.ts'
import type { Executor, RowChangeListener, RowWatch, WatchedTable } from '../../platform/db/index.ts'
import { type Account, findAccount } from '../accounts/index.ts'
import { findSessionWithAccount } from './repository.ts'

export type SessionWithAccount = NonNullable<Awaited<ReturnType<typeof findSessionWithAccount>>>

/** Entries per map; past it the oldest go (a full map only costs reads, never correctness). */
const MAX_ENTRIES = 10_000
/**
 * A safety net, not the mechanism: a feed that failed without noticing (a connection silently cut)
 * makes a cached row at most this stale.
 */
const MAX_AGE_MS = 30_000

interface Entry<V> {
  value: V
  readAt: number
}

export class AuthRowCache implements RowChangeListener {
  /** The rows it caches; their tables' owners are this module and accounts (its index.ts door). */
  readonly watchedTables: readonly WatchedTable[] = ['sessions', 'accounts']
  readonly #sessions = new Map<string, Entry<SessionWithAccount>>()
  readonly #accounts = new Map<string, Entry<Account>>()
  /** Moves on every invalidation: a read that started before one must not be cached. */
  #generation = 0
  #watch: RowWatch | null = null

  start(ctx: AppContext): void {
    this.#watch = ctx.db.watchRows?.(this, (message, err) => ctx.log.warn({ err }, message)) ?? null
  }

  async stop(): Promise<void> {
    const watch = this.#watch
    this.#watch = null
    this.reset()
    await watch?.stop()
  }

  changed(table: WatchedTable, id: string): void {
    this.#generation++
    if (table === 'sessions') {
      this.#sessions.delete(id)
      return
    }
    this.#accounts.delete(id)
    for (const [sessionId, entry] of this.#sessions) {
      if (entry.value.account_id === id) this.#sessions.delete(sessionId)
    }
  }

  reset(): void {
    this.#generation++
    this.#sessions.clear()
    this.#accounts.clear()
  }

  /** This process changed the account's sessions: forget them now, not when the NOTIFY comes back. */
  forgetAccount(accountId: string): void {
    this.changed('accounts', accountId)
  }

  /** This process changed the session: forget it now. */
  forgetSession(sessionId: string): void {
    this.changed('sessions', sessionId)
  }

  session(db: Executor, sessionId: string, now: number): Promise<SessionWithAccount | undefined> {
    return this.#cached(this.#sessions, sessionId, now, () => findSessionWithAccount(db, sessionId))
  }

  account(ctx: AppContext, accountId: string, now: number): Promise<Account | undefined> {
    return this.#cached(this.#accounts, accountId, now, () => findAccount(ctx, accountId))
  }

  /** After notifications that have already arrived are applied: did none of them touch the cache? */
  async #stillValid(): Promise<boolean> {
    const settle = this.#watch?.settle
    if (!settle) return true
    const generation = this.#generation
    await settle()
    return generation === this.#generation && (this.#watch?.covered() ?? false)
  }

  async #cached<V>(
    map: Map<string, Entry<V>>,
    key: string,
    now: number,
    read: () => Promise<V | undefined>,
  ): Promise<V | undefined> {
    // covered() first: it may drop everything (another process wrote) before the lookup.
    const covered = this.#watch?.covered() ?? false
    if (covered) {
      const hit = map.get(key)
      if (hit !== undefined && now - hit.readAt < MAX_AGE_MS && (await this.#stillValid())) return hit.value
    }
    const generation = this.#generation
    const value = await read()
    // Only rows no change can have overtaken: feed still up (checked first: it may drop everything)
    // and no change reported since the read began.
    const stillCovered = covered && (this.#watch?.covered() ?? false)
    if (value !== undefined && stillCovered && generation === this.#generation) {
      if (map.size >= MAX_ENTRIES) {
        const oldest = map.keys().next().value
        if (oldest !== undefined) map.delete(oldest)
      }
      map.set(key, { value, readAt: now })
    }
    return value
  }
}

const caches = new WeakMap<AppContext, AuthRowCache>()

/** Starts the app's cache (sessionRoutes); answers it for stopping with the app. */
export function startAuthRowCache(ctx: AppContext): AuthRowCache {
  const cache = new AuthRowCache()
  cache.start(ctx)
  caches.set(ctx, cache)
  return cache
}

/** The app's cache; undefined outside an app (the CLI), where every lookup reads rows. */
export function authRowCache(ctx: AppContext): AuthRowCache | undefined {
  return caches.get(ctx)
}
