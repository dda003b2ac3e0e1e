// PostgreSQL: one LISTEN connection per opened database, shared by everything in the process that
// waits for NOTIFY (delivery and conversion workers, the event stream, the session and account
// caches). One connection instead of one per consumer: each is one more connection to size for,
// and PostgreSQL signals every listening backend of the database at each notifying commit,
// whatever channels it listens on, so each is also one more wake-up on the server per emit.
import pg from 'pg'

export interface NotificationSubscriber {
  /** A NOTIFY on the channel was committed (`payload` may be empty). */
  notify(payload: string): void
  /**
   * The connection listens on the channel, for the first time or again after a loss: whatever was
   * notified before may have been missed.
   */
  up(): void
  /**
   * The connection was lost or could not be made (`error`; retried with backoff up to 5 s) or the
   * database closed (`null`); `up` follows once a reconnect listens again.
   */
  down(error: Error | null): void
}

const RETRY_FIRST_MS = 100
const RETRY_MAX_MS = 5_000

export class PgNotifications {
  readonly #subscribers = new Map<string, Set<NotificationSubscriber>>()
  /** Channels the current connection has answered a LISTEN for. */
  readonly #listening = new Set<string>()
  #client: pg.Client | null = null
  #connected = false
  #syncing: Promise<void> = Promise.resolve()
  /** The statements on the LISTEN connection, one after another (see #serial). */
  #statements: Promise<unknown> = Promise.resolve()
  #retry: NodeJS.Timeout | null = null
  #retryMs = RETRY_FIRST_MS
  #closed = false
  #schema = ''

  readonly url: string
  readonly pgSchema: string | undefined

  /** `pgSchema`: the schema the database's pool uses (names the connection, and sets its search_path). */
  constructor(url: string, pgSchema: string | undefined) {
    this.url = url
    this.pgSchema = pgSchema
  }

  /** The connection's current_schema() once it is up: payloads that name a schema compare to it. */
  get schema(): string {
    return this.#schema
  }

  /** The channels the connection listens on right now (PostgreSQL answered the LISTEN). */
  get channels(): string[] {
    return [...this.#listening].sort()
  }

  /** Starts listening on `channel` (connecting first if needed); answers the unsubscribe. */
  subscribe(channel: string, subscriber: NotificationSubscriber): () => void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`bad channel name ${channel}`)
    if (this.#closed) throw new Error('the database is closed')
    const set = this.#subscribers.get(channel) ?? new Set()
    this.#subscribers.set(channel, set)
    set.add(subscriber)
    if (this.#listening.has(channel)) queueMicrotask(() => set.has(subscriber) && subscriber.up())
    else if (this.#connected) this.#sync()
    else if (this.#client === null && this.#retry === null) void this.#connect()
    return () => {
      set.delete(subscriber)
      if (set.size === 0 && this.#subscribers.get(channel) === set) this.#subscribers.delete(channel)
      if (this.#connected) this.#sync()
    }
  }

  /**
   * Runs a statement on the LISTEN connection itself (so `pg_backend_pid()` is its backend, and a
   * NOTIFY it sends follows every notification it received before); null while it is down.
   */
  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[] | null> {
    return this.#serial(async () => {
      const client = this.#client
      if (!client || !this.#connected) return null
      return (await client.query<R>(text, values)).rows
    })
  }

  /**
   * Runs `statement` once the connection's earlier ones finished: a pg client runs one at a time,
   * and handing it another while one runs is deprecated (pg 9 refuses it), so they queue here.
   */
  #serial<T>(statement: () => Promise<T>): Promise<T> {
    const next = this.#statements.then(statement, statement)
    this.#statements = next.catch(() => {})
    return next
  }

  async close(): Promise<void> {
    this.#closed = true
    if (this.#retry) clearTimeout(this.#retry)
    this.#retry = null
    const client = this.#client
    this.#dropConnection(null)
    await client?.end().catch(() => {})
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      // Tells operators (and tests) which connection this is in pg_stat_activity.
      application_name: `tessera-listen:${this.pgSchema ?? 'public'}`,
      ...(this.pgSchema ? { options: `-c search_path=${this.pgSchema}` } : {}),
    })
    this.#client = client
    client.on('error', (error) => this.#lost(client, error))
    client.on('end', () => this.#lost(client, new Error('connection ended')))
    client.on('notification', ({ channel, payload }) => {
      for (const subscriber of this.#subscribers.get(channel) ?? []) subscriber.notify(payload ?? '')
    })
    try {
      await client.connect()
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema')
      if (this.#client !== client) return
      this.#schema = rows[0]?.schema ?? 'public'
      this.#connected = true
      this.#retryMs = RETRY_FIRST_MS
      this.#sync()
    } catch (error) {
      this.#lost(client, error as Error)
    }
  }

  /** Brings the connection's LISTENs in line with the subscribed channels, one round at a time. */
  #sync(): void {
    // A failure the round did not handle (a subscriber that threw) counts as a lost connection:
    // the reconnect brings every channel back, and the chain never stays rejected.
    this.#syncing = this.#syncing
      .then(() => this.#syncOnce())
      .catch((error: unknown) => {
        if (this.#client) this.#lost(this.#client, error as Error)
      })
  }

  async #syncOnce(): Promise<void> {
    const client = this.#client
    if (!client || !this.#connected) return
    const wanted = [...this.#subscribers.keys()]
    const added = wanted.filter((channel) => !this.#listening.has(channel))
    const removed = [...this.#listening].filter((channel) => !this.#subscribers.has(channel))
    if (added.length === 0 && removed.length === 0) return
    const statements = [...added.map((c) => `listen ${c}`), ...removed.map((c) => `unlisten ${c}`)]
    try {
      await this.#serial(() => client.query(statements.join('; ')))
    } catch (error) {
      this.#lost(client, error as Error)
      return
    }
    if (this.#client !== client) return
    for (const channel of removed) this.#listening.delete(channel)
    for (const channel of added) {
      this.#listening.add(channel)
      for (const subscriber of [...(this.#subscribers.get(channel) ?? [])]) subscriber.up()
    }
  }

  #lost(client: pg.Client, error: Error): void {
    if (this.#client !== client) return
    this.#dropConnection(error)
    client.end().catch(() => {})
    this.#scheduleRetry()
  }

  /** Every subscriber hears of it, also one whose channel was not listened on yet (it may log). */
  #dropConnection(error: Error | null): void {
    this.#client = null
    this.#connected = false
    this.#listening.clear()
    const everyone = new Set([...this.#subscribers.values()].flatMap((set) => [...set]))
    for (const subscriber of everyone) subscriber.down(error)
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry) return
    this.#retry = setTimeout(() => {
      this.#retry = null
      if (!this.#closed && this.#subscribers.size > 0) void this.#connect()
    }, this.#retryMs)
    this.#retry.unref()
    this.#retryMs = Math.min(RETRY_MAX_MS, this.#retryMs * 2)
  }
}
