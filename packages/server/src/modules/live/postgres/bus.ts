// PostgreSQL: NOTIFY on `tessera_live`, heard through the database's one LISTEN connection per
// process (platform/db/notifications.ts). Messages queued while a NOTIFY is on its way travel
// together, as a JSON array of at most PAYLOAD_BYTES (PostgreSQL refuses more than 8000); one
// statement at a time, so one process's messages arrive in the order it sent them.
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { Db } from '../../../platform/db/index.ts'
import { type BusListener, Listeners, type LiveBus, type RelayMessage } from '../bus.ts'

export const LIVE_CHANNEL = 'tessera_live'
const PAYLOAD_BYTES = 7900

export class PgNotifyBus implements LiveBus {
  readonly #db: Db
  log: Logger | null = null
  readonly #listeners = new Listeners()
  #queue: string[] = []
  #sending = false
  #unlisten: (() => void) | null = null

  constructor(db: Db) {
    this.#db = db
  }

  useLog(log: Logger): void {
    this.log ??= log
  }

  publish(message: RelayMessage): void {
    this.#queue.push(JSON.stringify(message))
    if (!this.#sending) void this.#drain()
  }

  subscribe(listener: BusListener): () => void {
    const stop = this.#listeners.add(listener)
    this.#unlisten ??=
      this.#db.notifications?.subscribe(LIVE_CHANNEL, {
        notify: (payload) => this.#receive(payload),
        up: () => this.#listeners.up(),
        down: (error) => {
          if (error) this.log?.warn({ err: error }, 'live sessions: LISTEN connection lost; reconnecting')
        },
      }) ?? null
    return () => {
      stop()
      if (this.#listeners.size === 0) {
        this.#unlisten?.()
        this.#unlisten = null
      }
    }
  }

  #receive(payload: string): void {
    let messages: RelayMessage[]
    try {
      messages = JSON.parse(payload) as RelayMessage[]
    } catch {
      return
    }
    for (const message of messages) this.#listeners.deliver(message)
  }

  /** The queue's first messages that fit in one payload, as a JSON array. */
  #nextPayload(): string {
    let bytes = 2
    let count = 0
    for (const text of this.#queue) {
      const size = Buffer.byteLength(text) + 1
      if (count > 0 && bytes + size > PAYLOAD_BYTES) break
      bytes += size
      count += 1
    }
    return `[${this.#queue.splice(0, count).join(',')}]`
  }

  async #drain(): Promise<void> {
    this.#sending = true
    try {
      while (this.#queue.length > 0) {
        const payload = this.#nextPayload()
        try {
          await sql`select pg_notify(${LIVE_CHANNEL}, ${payload})`.execute(this.#db.kysely)
        } catch (err) {
          // Lost: the hubs' heartbeats see a count that does not match and ask for a roster.
          this.log?.warn({ err }, 'live sessions: NOTIFY failed')
        }
      }
    } finally {
      this.#sending = false
    }
  }
}
