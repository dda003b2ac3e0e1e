// Row-change feeds for caches of rows that change rarely but are read on every request (sessions,
// accounts). A cache may answer from memory only while the feed is `covered`: every change made by
// any process since the entry was read has been or will be reported to it. Each listener names the
// tables it hears of (`watchedTables`, named by their owners: the kernel names no feature table).
// - SQLite: a TEMP trigger on this connection calls into JavaScript inside the writing statement
//   (changes by this process, at once); `PRAGMA data_version` moves when another process (the CLI
//   beside the server) commits anything, and then the whole cache is dropped.
// - PostgreSQL: triggers (migrations 0016, 0034) NOTIFY in the writing transaction; the database's LISTEN
//   connection (notifications.ts) reports them after commit. While that connection is down nothing
//   is covered (callers read rows), and on every (re)connect the cache is dropped: notifications
//   may have been missed.
import { randomUUID } from 'node:crypto'
import type SqliteDatabase from 'better-sqlite3'
import type { NotificationSubscriber, PgNotifications } from './notifications.ts'
import type { Database } from './schema.ts'

/**
 * A table whose changes are reported by a key of the row. On PostgreSQL the table needs a NOTIFY
 * trigger, which says which changes and which key: migration 0016 reports updates and deletes of
 * `sessions` and `accounts` by `id`; migration 0034 every change of `files` by `owner_id` and of
 * `file_shares` by `account_id`. On SQLite the feed adds TEMP triggers itself, for updates and
 * deletes by `id` (no SQLite cache watches another table).
 */
export type WatchedTable = keyof Database & string
/**
 * The PostgreSQL channel the triggers of migration 0016 notify: `<schema> <table> <id>`; also the
 * writers' `<schema> sync <nonce>` and the feeds' `<schema> ack <nonce> <feed>` (row-sync.ts).
 */
export const ROW_CHANGE_CHANNEL = 'tessera_auth_rows'
export const SYNC_KIND = 'sync'
export const ACK_KIND = 'ack'
const SEND_ROW_NOTICE = 'select pg_notify($1, $2)'
// On the feed's LISTEN connection: its backend is the one the feed hears on.
// Rows of feeds whose backend is gone (a process that died) go on the way, once an hour old: a row
// re-registered this moment by another feed (on a new backend this statement's view of
// pg_stat_activity may not hold yet) is never taken for dead. Dead rows are ignored until then.
const REGISTER_FEED = `with gone as (delete from auth_listeners l where l.backend_start < now() - interval '1 hour'
    and not exists (select 1 from pg_stat_activity a where a.pid = l.pid and a.backend_start = l.backend_start))
  insert into auth_listeners (feed_id, pid, backend_start)
  select $1, pid, backend_start from pg_stat_activity where pid = pg_backend_pid()
  on conflict (feed_id) do update set pid = excluded.pid, backend_start = excluded.backend_start`
const UNREGISTER_FEED = 'delete from auth_listeners where feed_id = $1'

export interface RowChangeListener {
  /** The tables whose changes this listener hears of (WatchedTable says by which key). */
  readonly watchedTables: readonly WatchedTable[]
  /** A row of one of `watchedTables` changed (by this process or another); `id` is its reported key. */
  changed(table: WatchedTable, id: string): void
  /** Changes may have been missed (feed lost or regained, another process wrote): forget everything. */
  reset(): void
}

export interface RowWatch {
  /** Whether every change is being reported right now; may call the listener's reset() first. */
  covered(): boolean
  /**
   * PostgreSQL: resolves once notifications that reached this process before the call have been
   * applied (after an event-loop poll phase). A row read from the cache is used only after it, so a
   * change committed before the request came in is seen whenever its NOTIFY has arrived by then.
   */
  settle?(): Promise<void>
  stop(): Promise<void>
}

export type WatchRows = (
  listener: RowChangeListener,
  log: (message: string, error: unknown) => void,
) => RowWatch

/** SQLite: one set of TEMP triggers per connection, shared by every listener on it. */
export function sqliteRowWatcher(database: SqliteDatabase.Database): WatchRows {
  const listeners = new Set<RowChangeListener>()
  const installed = new Set<string>()
  const install = (tables: readonly WatchedTable[]) => {
    if (installed.size === 0) {
      database.function('tessera_row_changed', { deterministic: false }, (table: unknown, id: unknown) => {
        for (const listener of listeners) {
          if (listener.watchedTables.includes(table as WatchedTable))
            listener.changed(table as WatchedTable, String(id))
        }
        return null
      })
    }
    for (const table of tables) {
      if (installed.has(table)) continue
      // Interpolated into the trigger's SQL: only a plain table name may get there.
      if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`)
      for (const event of ['update', 'delete']) {
        database.exec(
          `create temp trigger if not exists tessera_${table}_${event} after ${event} on main.${table} ` +
            `begin select tessera_row_changed('${table}', old.id); end`,
        )
      }
      installed.add(table)
    }
  }
  return (listener) => {
    install(listener.watchedTables)
    const dataVersion = database.prepare('pragma data_version').pluck()
    let seen = dataVersion.get()
    // One look per event-loop turn: the pragma is a statement (~10 µs), asked twice per request, and
    // every request of a turn may share the answer: a commit by another process during the turn is
    // seen at the next one, a few milliseconds later at most.
    let lookedThisTurn = false
    const nextTurn = () => {
      lookedThisTurn = false
    }
    listeners.add(listener)
    return {
      covered() {
        if (!lookedThisTurn) {
          lookedThisTurn = true
          setImmediate(nextTurn)
          const now = dataVersion.get()
          if (now !== seen) {
            seen = now
            listener.reset()
          }
        }
        return database.open
      },
      async stop() {
        listeners.delete(listener)
      },
    }
  }
}

/**
 * PostgreSQL: one feed per connection of notifications (one row in auth_listeners, one
 * acknowledgement per sync), shared by every listener on it; it stops with its last listener.
 */
export function pgRowWatcher(notifications: PgNotifications): WatchRows {
  let feed: PgRowFeed | null = null
  return (listener, log) => {
    if (feed === null) {
      feed = new PgRowFeed(notifications, log)
      feed.start()
    }
    const joined = feed
    joined.listeners.add(listener)
    return {
      covered: () => joined.live,
      settle: afterPoll,
      async stop() {
        joined.listeners.delete(listener)
        if (joined.listeners.size > 0) return
        if (feed === joined) feed = null
        await joined.stop()
      },
    }
  }
}

let polled: Promise<void> | null = null

/**
 * Two setImmediate hops: the second runs in the check phase of the next loop iteration, so a full
 * poll phase (socket reads, the LISTEN connection's included) lies in between. One promise per turn,
 * shared by every request that asks in it.
 */
function afterPoll(): Promise<void> {
  polled ??= new Promise((resolve) => {
    setImmediate(() => {
      polled = null
      setImmediate(resolve)
    })
  })
  return polled
}

class PgRowFeed implements NotificationSubscriber {
  /** Listening: every change is reported. */
  live = false
  /** This feed in auth_listeners: writers wait for its acknowledgements (row-sync.ts). */
  readonly id = randomUUID()
  #unsubscribe: (() => void) | null = null
  /** Moves on every up and down: a registration answered after a loss must not make it live. */
  #epoch = 0

  readonly notifications: PgNotifications
  /** Whom it reports to; a listener that joins a live feed hears every change from then on. */
  readonly listeners = new Set<RowChangeListener>()
  /** The first listener's log (the app's). */
  readonly log: (message: string, error: unknown) => void

  constructor(notifications: PgNotifications, log: (message: string, error: unknown) => void) {
    this.notifications = notifications
    this.log = log
  }

  #resetAll(): void {
    for (const listener of this.listeners) listener.reset()
  }

  start(): void {
    this.#unsubscribe = this.notifications.subscribe(ROW_CHANGE_CHANNEL, this)
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.()
    this.#unsubscribe = null
    this.#epoch++
    this.live = false
    // Writers must not wait for a feed that is gone while its connection lives on.
    await this.notifications.query(UNREGISTER_FEED, [this.id]).catch(() => {})
  }

  notify(payload: string): void {
    const [schema, kind, id] = payload.split(' ')
    if (schema !== this.notifications.schema || id === undefined) return
    if (kind === SYNC_KIND) {
      // Every change committed before the writer asked came in before this message (commit order).
      this.notifications
        .query(SEND_ROW_NOTICE, [ROW_CHANGE_CHANNEL, `${schema} ${ACK_KIND} ${id} ${this.id}`])
        .catch((error: unknown) => this.log('could not acknowledge a row-change sync', error))
      return
    }
    if (kind === ACK_KIND) return
    for (const listener of this.listeners) {
      if (listener.watchedTables.includes(kind as WatchedTable)) listener.changed(kind as WatchedTable, id)
    }
  }

  up(): void {
    // Rows cached before this point may have changed unreported.
    this.#resetAll()
    // Covered only once registered: until then writers would not wait for this feed.
    const epoch = ++this.#epoch
    this.notifications.query(REGISTER_FEED, [this.id]).then(
      (rows) => {
        if (rows === null || !this.#unsubscribe || epoch !== this.#epoch) return
        this.#resetAll()
        this.live = true
      },
      (error: unknown) => this.log('could not register the row-change feed; reading rows', error),
    )
  }

  down(error: Error | null): void {
    this.#epoch++
    this.live = false
    this.#resetAll()
    if (error && this.#unsubscribe) {
      this.log('row-change LISTEN connection lost; reading rows until it is back', error)
    }
  }
}
