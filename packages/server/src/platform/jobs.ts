// What every background worker here shares (webhook deliveries, conversions): waking workers when
// work becomes due — directly in this process, by NOTIFY across PostgreSQL clients — and the lease
// a claimed item is held under.
import { sql } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import type { Db, Executor } from './db/index.ts'

/** Something that claims work from one database and can be told to look now. */
export interface Waker {
  readonly db: Db
  wake(): void
}

/**
 * A named kind of work that workers wait for. `wake` inside a transaction sends the PostgreSQL
 * NOTIFY at commit; outside one, at once. SQLite has one connection: a woken worker's claim queues
 * behind the transaction and so sees its outcome. On PostgreSQL an early claim finds nothing and the
 * NOTIFY at commit wakes the worker again.
 */
export class WakeChannel {
  readonly #local = new Set<Waker>()

  readonly name: string

  constructor(name: string) {
    this.name = name
    if (!/^[a-z_]+$/.test(name)) throw new Error(`bad channel name ${name}`)
  }

  /** In-process workers register so that new work wakes them directly; answers the unregister. */
  register(worker: Waker): () => void {
    this.#local.add(worker)
    return () => this.#local.delete(worker)
  }

  async wake(db: Db, executor: Executor): Promise<void> {
    if (db.dialect === 'postgres') await sql`select pg_notify(${this.name}, '')`.execute(executor)
    for (const worker of this.#local) if (worker.db === db) worker.wake()
  }
}

/** Wakes workers of the `jobs` table (conversions): enqueueJob (job-queue.ts) wakes it in its transaction. */
export const jobsChannel = new WakeChannel('tessera_jobs')

/**
 * A dedicated PostgreSQL connection LISTENing on a channel; reconnects after errors. Workers also
 * poll slowly, so a lost notification only delays work, never loses it.
 */
export interface PgListenerOptions {
  databaseUrl: string
  channel: string
  onNotify: () => void
  log: Logger
}

export class PgListener {
  #client: pg.Client | null = null
  #retry: NodeJS.Timeout | null = null
  #running = false

  readonly options: PgListenerOptions

  constructor(options: PgListenerOptions) {
    this.options = options
  }

  start(): void {
    if (this.#running) return
    this.#running = true
    void this.#listen()
  }

  async stop(): Promise<void> {
    this.#running = false
    if (this.#retry) clearTimeout(this.#retry)
    this.#retry = null
    const client = this.#client
    this.#client = null
    await client?.end().catch(() => {})
  }

  async #listen(): Promise<void> {
    const { databaseUrl, channel, onNotify, log } = this.options
    const client = new pg.Client({ connectionString: databaseUrl })
    client.on('notification', onNotify)
    client.on('error', (err) => {
      log.warn({ err, channel }, 'LISTEN connection lost; reconnecting')
      if (this.#client === client) this.#client = null
      client.end().catch(() => {})
      this.#scheduleRetry()
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${channel}`)
      if (!this.#running) {
        await client.end()
        return
      }
      this.#client = client
      onNotify() // anything queued while we were not listening
    } catch (err) {
      log.warn({ err, channel }, 'could not LISTEN; polling only until it works')
      client.end().catch(() => {})
      this.#scheduleRetry()
    }
  }

  #scheduleRetry(): void {
    if (!this.#running || this.#retry) return
    this.#retry = setTimeout(() => {
      this.#retry = null
      if (this.#running) void this.#listen()
    }, 5000)
    this.#retry.unref()
  }
}

/**
 * How long a claim holds an item: the work's time budget plus a margin for recording the result,
 * then another worker may take over. The margin scales with the budget (2 s to 30 s) so that a short
 * budget also means a quick takeover after a crash, while slow work is never run twice at once.
 */
export function leaseMs(budgetMs: number): number {
  return budgetMs + Math.min(30_000, Math.max(2_000, budgetMs))
}

/**
 * Makes `worker` wake when work is queued on `channel`: directly from this process, and on
 * PostgreSQL through a LISTEN connection. Answers the function that undoes both.
 */
export function listenForWork(
  worker: Waker,
  channel: WakeChannel,
  options: { databaseUrl: string | undefined; log: Logger },
): () => Promise<void> {
  const unregister = channel.register(worker)
  const listener =
    worker.db.dialect === 'postgres' && options.databaseUrl
      ? new PgListener({
          databaseUrl: options.databaseUrl,
          channel: channel.name,
          onNotify: () => worker.wake(),
          log: options.log,
        })
      : null
  listener?.start()
  return async () => {
    unregister()
    await listener?.stop()
  }
}
