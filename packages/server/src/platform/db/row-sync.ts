// The revocation barrier (PostgreSQL). A call that changed sessions or accounts rows (a revocation:
// disabling, a password change, a new session superseding the old one, a sign-out) waits, before it
// answers, until every process's row-change feed has applied the change: it sends `sync <nonce>` on
// the row-change channel after its commit, and each feed registered in auth_listeners (migration
// 0025) whose LISTEN backend is alive answers `ack <nonce> <feed>` once the message reached it —
// notifications arrive in commit order, so by then the feed has dropped the changed rows from its
// cache. Then no process can answer a request that comes after from a stale row, however loaded it
// is or slow its link. A feed that does not answer within SYNC_WAIT_MS (a process stuck that long)
// is named to the caller, which logs it and answers anyway; such a process, once it runs again,
// reads the notification waiting in its socket before it uses the cache (row-changes.ts, settle).
// SQLite needs no barrier: this process's triggers run inside the writing statement, and other
// processes compare the data version on each event-loop turn.
import { randomUUID } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import type { NotificationSubscriber, PgNotifications } from './notifications.ts'
import { ACK_KIND, ROW_CHANGE_CHANNEL, SYNC_KIND } from './row-changes.ts'
import type { Database } from './schema.ts'

/** How long a writer waits for every feed's acknowledgement. */
const SYNC_WAIT_MS = 2_000

const LIVE_FEEDS = sql<{ feed_id: string }>`select l.feed_id from auth_listeners l
  join pg_stat_activity a on a.pid = l.pid and a.backend_start = l.backend_start`

/** Resolves to the feeds that did not acknowledge in time (none: every process has the change). */
export type SyncRowChanges = () => Promise<string[]>

/**
 * Call after the commit of a change to sessions or accounts rows, before answering: every process
 * has applied it when this resolves (PostgreSQL; at once on SQLite). Feeds that did not answer in
 * time are logged.
 */
export async function awaitRowChangesSeen(
  db: { syncRowChanges?: SyncRowChanges },
  log: { warn(details: object, message: string): void },
): Promise<void> {
  let missing: string[]
  try {
    missing = (await db.syncRowChanges?.()) ?? []
  } catch (err) {
    // The change is committed; only the wait failed (the database went away meanwhile).
    log.warn({ err }, 'could not wait for the row-change feeds to acknowledge a change')
    return
  }
  if (missing.length > 0) {
    log.warn({ feeds: missing }, 'row-change feeds did not acknowledge a change in time; answering anyway')
  }
}

export function pgRowSync(notifications: PgNotifications, kysely: Kysely<Database>): SyncRowChanges {
  const acks = new AckListener(notifications)
  return async () => {
    if (!(await acks.start())) return []
    const nonce = randomUUID()
    const { rows } = await LIVE_FEEDS.execute(kysely)
    if (rows.length === 0) return []
    // Counted before the sync goes out: every acknowledgement that can come finds its waiter.
    const waiter = new Waiter(rows.map((row) => row.feed_id))
    acks.waiting.set(nonce, waiter)
    try {
      const payload = `${notifications.schema} ${SYNC_KIND} ${nonce}`
      await sql`select pg_notify(${ROW_CHANGE_CHANNEL}, ${payload})`.execute(kysely)
      return await waiter.settled(SYNC_WAIT_MS)
    } finally {
      acks.waiting.delete(nonce)
    }
  }
}

/** The feeds one sync still waits for. */
class Waiter {
  readonly #expected: Set<string>
  #done: (() => void) | null = null

  constructor(feeds: string[]) {
    this.#expected = new Set(feeds)
  }

  acknowledged(feed: string): void {
    this.#expected.delete(feed)
    if (this.#expected.size === 0) this.#done?.()
  }

  /** Resolves to the feeds that had not acknowledged when all did or `ms` passed. */
  async settled(ms: number): Promise<string[]> {
    if (this.#expected.size > 0) {
      let timer: NodeJS.Timeout | undefined
      await new Promise<void>((resolve) => {
        this.#done = resolve
        timer = setTimeout(resolve, ms)
      })
      clearTimeout(timer)
    }
    return [...this.#expected]
  }
}

/** This process's ears for acknowledgements, on the shared LISTEN connection. */
class AckListener implements NotificationSubscriber {
  readonly waiting = new Map<string, Waiter>()
  #live = false
  #started = false
  #up: Array<() => void> = []
  readonly notifications: PgNotifications

  constructor(notifications: PgNotifications) {
    this.notifications = notifications
  }

  /**
   * Subscribes on first use (a CLI command connects only when it revokes); answers whether
   * acknowledgements can be heard, waiting up to SYNC_WAIT_MS for the LISTEN to be answered.
   */
  async start(): Promise<boolean> {
    if (!this.#started) {
      this.#started = true
      this.notifications.subscribe(ROW_CHANGE_CHANNEL, this)
    }
    if (this.#live) return true
    let timer: NodeJS.Timeout | undefined
    await new Promise<void>((resolve) => {
      this.#up.push(resolve)
      timer = setTimeout(resolve, SYNC_WAIT_MS)
    })
    clearTimeout(timer)
    return this.#live
  }

  notify(payload: string): void {
    const [schema, kind, nonce, feed] = payload.split(' ')
    if (kind !== ACK_KIND || schema !== this.notifications.schema || !nonce || !feed) return
    this.waiting.get(nonce)?.acknowledged(feed)
  }

  up(): void {
    this.#live = true
    for (const resolve of this.#up.splice(0)) resolve()
  }

  down(): void {
    this.#live = false
  }
}
