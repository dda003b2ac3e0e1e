// Row-change feeds for caches of rows that change rarely but are read on every request (sessions,
// accounts). A cache may answer from memory only while the feed is `covered`: every change made by
// any process since the entry was read has been or will be reported to it.
// - SQLite: a TEMP trigger on this connection calls into JavaScript inside the writing statement
//   (changes by this process, at once); `PRAGMA data_version` moves when another process (the CLI
//   beside the server) commits anything, and then the whole cache is dropped.
// - PostgreSQL: triggers (migration 0016) NOTIFY in the writing transaction; the database's LISTEN
//   connection (notifications.ts) reports them after commit, and a cached row is used only after a
//   round trip on that connection (shared by the requests of an event-loop turn) has brought every
//   change committed before the request in. While that connection is down nothing is covered
//   (callers read rows), and on every (re)connect the cache is dropped: notifications may have
//   been missed.
import type SqliteDatabase from 'better-sqlite3'
import type { NotificationSubscriber, PgNotifications } from './notifications.ts'

/** The tables whose updates and deletes are reported (by `id`). */
export const WATCHED_TABLES = ['sessions', 'accounts'] as const
export type WatchedTable = (typeof WATCHED_TABLES)[number]
/** The PostgreSQL channel the triggers of migration 0016 notify: `<schema> <table> <id>`. */
export const ROW_CHANGE_CHANNEL = 'tessera_auth_rows'

export interface RowChangeListener {
  /** A row was updated or deleted (by this process or another). */
  changed(table: WatchedTable, id: string): void
  /** Changes may have been missed (feed lost or regained, another process wrote): forget everything. */
  reset(): void
}

export interface RowWatch {
  /** Whether every change is being reported right now; may call the listener's reset() first. */
  covered(): boolean
  /**
   * PostgreSQL: resolves true once every change committed before the call has been reported to the
   * listener (a round trip on the LISTEN connection, notifications.ts), false when that cannot be
   * known (the connection is down or did not answer in time). A row read from the cache is used
   * only after it answered true: a change committed before the request came in is seen however late
   * its NOTIFY would otherwise have arrived (a loaded process, a slow link).
   */
  settle?(): Promise<boolean>
  /**
   * PostgreSQL: resolves when this process's LISTEN connection receives the change of `table`/`id`
   * (at most ECHO_WAIT_MS; at once while the feed is down). A writer that waits for it before
   * answering knows that PostgreSQL has sent the NOTIFY to every listener by then. Call it before
   * the write: the notification may come in as soon as the write commits.
   */
  echo?(table: WatchedTable, id: string): Promise<void>
  stop(): Promise<void>
}

/** How long a writer waits for the echo of its change (it never waits for nothing longer). */
export const ECHO_WAIT_MS = 100

export type WatchRows = (
  listener: RowChangeListener,
  log: (message: string, error: unknown) => void,
) => RowWatch

/** SQLite: one set of TEMP triggers per connection, shared by every listener on it. */
export function sqliteRowWatcher(database: SqliteDatabase.Database): WatchRows {
  const listeners = new Set<RowChangeListener>()
  let installed = false
  const install = () => {
    database.function('tessera_row_changed', { deterministic: false }, (table: unknown, id: unknown) => {
      for (const listener of listeners) listener.changed(table as WatchedTable, String(id))
      return null
    })
    for (const table of WATCHED_TABLES) {
      for (const event of ['update', 'delete']) {
        database.exec(
          `create temp trigger if not exists tessera_${table}_${event} after ${event} on main.${table} ` +
            `begin select tessera_row_changed('${table}', old.id); end`,
        )
      }
    }
    installed = true
  }
  return (listener) => {
    if (!installed) install()
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

/** PostgreSQL: a feed per listener, on the database's shared LISTEN connection. */
export function pgRowWatcher(notifications: PgNotifications): WatchRows {
  return (listener, log) => {
    const feed = new PgRowFeed(notifications, listener, log)
    feed.start()
    return {
      covered: () => feed.live,
      settle: () => notifications.roundTrip(),
      echo: (table, id) => feed.echo(`${table} ${id}`),
      stop: async () => feed.stop(),
    }
  }
}

class PgRowFeed implements NotificationSubscriber {
  /** Listening: every change is reported. */
  live = false
  #unsubscribe: (() => void) | null = null
  readonly #echoes = new Map<string, Set<() => void>>()

  readonly notifications: PgNotifications
  readonly listener: RowChangeListener
  readonly log: (message: string, error: unknown) => void

  constructor(
    notifications: PgNotifications,
    listener: RowChangeListener,
    log: (message: string, error: unknown) => void,
  ) {
    this.notifications = notifications
    this.listener = listener
    this.log = log
  }

  start(): void {
    this.#unsubscribe = this.notifications.subscribe(ROW_CHANGE_CHANNEL, this)
  }

  echo(key: string): Promise<void> {
    if (!this.live) return Promise.resolve()
    return new Promise((resolve) => {
      const waiting = this.#echoes.get(key) ?? new Set()
      this.#echoes.set(key, waiting)
      const done = () => {
        clearTimeout(timer)
        waiting.delete(done)
        if (waiting.size === 0 && this.#echoes.get(key) === waiting) this.#echoes.delete(key)
        resolve()
      }
      const timer = setTimeout(done, ECHO_WAIT_MS)
      timer.unref()
      waiting.add(done)
    })
  }

  #echoAll(): void {
    for (const waiting of [...this.#echoes.values()]) for (const done of [...waiting]) done()
  }

  stop(): void {
    this.#unsubscribe?.()
    this.#unsubscribe = null
    this.live = false
    this.#echoAll()
  }

  notify(payload: string): void {
    const [schema, table, id] = payload.split(' ')
    if (schema !== this.notifications.schema || id === undefined) return
    this.listener.changed(table as WatchedTable, id)
    for (const done of [...(this.#echoes.get(`${table} ${id}`) ?? [])]) done()
  }

  up(): void {
    // Rows cached before this point may have changed unreported.
    this.listener.reset()
    this.live = true
  }

  down(error: Error | null): void {
    this.live = false
    this.listener.reset()
    this.#echoAll()
    if (error && this.#unsubscribe) {
      this.log('row-change LISTEN connection lost; reading rows until it is back', error)
    }
  }
}
