// Row-change feeds for caches of rows that change rarely but are read on every request (sessions,
// accounts). A cache may answer from memory only while the feed is `covered`: every change made by
// any process since the entry was read has been or will be reported to it.
// - SQLite: a TEMP trigger on this connection calls into JavaScript inside the writing statement
//   (changes by this process, at once); `PRAGMA data_version` moves when another process (the CLI
//   beside the server) commits anything, and then the whole cache is dropped.
// - PostgreSQL: triggers (migration 0016) NOTIFY in the writing transaction; a dedicated LISTEN
//   connection reports them after commit. While that connection is down nothing is covered (callers
//   read rows), and on every (re)connect the cache is dropped: notifications may have been missed.
import type SqliteDatabase from 'better-sqlite3'
import pg from 'pg'

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
   * PostgreSQL: resolves once notifications that reached this process before the call have been
   * applied (after an event-loop poll phase). A row read from the cache is used only after it, so a
   * change committed before the request came in is seen whenever its NOTIFY has arrived by then.
   */
  settle?(): Promise<void>
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

const RETRY_FIRST_MS = 100
const RETRY_MAX_MS = 5_000

/** PostgreSQL: a LISTEN connection per listener; reconnects with backoff while not stopped. */
export function pgRowWatcher(url: string, schema: string | undefined): WatchRows {
  return (listener, log) => {
    const feed = new PgRowFeed(url, schema, listener, log)
    feed.start()
    return {
      covered: () => feed.up,
      settle: afterPoll,
      echo: (table, id) => feed.echo(`${table} ${id}`),
      stop: () => feed.stop(),
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

class PgRowFeed {
  up = false
  #client: pg.Client | null = null
  #retry: NodeJS.Timeout | null = null
  #retryMs = RETRY_FIRST_MS
  #running = false
  readonly #echoes = new Map<string, Set<() => void>>()

  readonly url: string
  readonly schema: string | undefined
  readonly listener: RowChangeListener
  readonly log: (message: string, error: unknown) => void

  constructor(
    url: string,
    schema: string | undefined,
    listener: RowChangeListener,
    log: (message: string, error: unknown) => void,
  ) {
    this.url = url
    this.schema = schema
    this.listener = listener
    this.log = log
  }

  start(): void {
    this.#running = true
    void this.#connect()
  }

  echo(key: string): Promise<void> {
    if (!this.up) return Promise.resolve()
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

  async stop(): Promise<void> {
    this.#running = false
    this.up = false
    this.#echoAll()
    if (this.#retry) clearTimeout(this.#retry)
    const client = this.#client
    this.#client = null
    await client?.end().catch(() => {})
  }

  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return
    this.#client = null
    this.up = false
    this.listener.reset()
    this.#echoAll()
    client.end().catch(() => {})
    if (this.#running) this.log('row-change LISTEN connection lost; reading rows until it is back', error)
    this.#scheduleRetry()
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      // Tells operators (and tests) which connection this is in pg_stat_activity.
      application_name: `tessera-row-changes:${this.schema ?? 'public'}`,
      ...(this.schema ? { options: `-c search_path=${this.schema}` } : {}),
    })
    this.#client = client
    client.on('error', (error) => this.#lost(client, error))
    client.on('end', () => this.#lost(client, new Error('connection ended')))
    try {
      await client.connect()
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema')
      const ours = rows[0]?.schema ?? 'public'
      client.on('notification', ({ payload }) => {
        const [schema, table, id] = (payload ?? '').split(' ')
        if (schema !== ours || id === undefined) return
        this.listener.changed(table as WatchedTable, id)
        for (const done of [...(this.#echoes.get(`${table} ${id}`) ?? [])]) done()
      })
      await client.query(`listen ${ROW_CHANGE_CHANNEL}`)
      if (this.#client !== client || !this.#running) return
      // Rows cached before this point may have changed unreported.
      this.listener.reset()
      this.up = true
      this.#retryMs = RETRY_FIRST_MS
    } catch (error) {
      this.#lost(client, error)
    }
  }

  #scheduleRetry(): void {
    if (!this.#running || this.#retry) return
    this.#retry = setTimeout(() => {
      this.#retry = null
      if (this.#running) void this.#connect()
    }, this.#retryMs)
    this.#retry.unref()
    this.#retryMs = Math.min(RETRY_MAX_MS, this.#retryMs * 2)
  }
}
