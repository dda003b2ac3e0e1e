// Streams opened with a session (a browser sends its session cookie with the stream's request) end
// when that session does: taken over by a newer sign-in of the account, ended, or expired. The
// sessions rows' change feed (platform/db/row-changes.ts: a trigger inside the writing statement on
// SQLite, a NOTIFY at commit on PostgreSQL) tells of a change within milliseconds; the streams of
// that session are held at once (nothing is sent) until the row is read again: then they end with
// a `session_ended` frame, or go on from where they stopped (reading what they missed from the
// database). The hub's heartbeat checks every bound session as well: a change missed by the feed
// (another process on SQLite, a lost LISTEN connection) or an expiry by time alone.
import type { Logger } from 'pino'
import type { Db, RowChangeListener, RowWatch, WatchedTable } from '../platform/db/index.ts'
import { sessionEndFrame } from './frames.ts'
import type { StreamStore } from './store.ts'
import type { Subscriber } from './subscriber.ts'

/** What the watch needs of the hub. */
export interface SessionBoundStreams {
  /** The live (not ended) streams opened with a session. */
  sessionBound(): Iterable<Subscriber>
  /** The stream's session is still good: it sends again from where it stopped. */
  unhold(subscriber: Subscriber): void
}

export class StreamSessionWatch implements RowChangeListener {
  readonly watchedTables: readonly WatchedTable[] = ['sessions']
  readonly #streams: SessionBoundStreams
  readonly #db: Db
  readonly #store: StreamStore
  readonly #log: Logger
  #watch: RowWatch | null = null
  #checking = false
  #again = false

  constructor(streams: SessionBoundStreams, db: Db, store: StreamStore, log: Logger) {
    this.#streams = streams
    this.#db = db
    this.#store = store
    this.#log = log
  }

  /** Starts listening to the feed (once a stream with a session opened). */
  start(): void {
    this.#watch ??= this.#db.watchRows?.(this, (message, err) => this.#log.warn({ err }, message)) ?? null
  }

  async stop(): Promise<void> {
    const watch = this.#watch
    this.#watch = null
    await watch?.stop()
  }

  changed(table: WatchedTable, id: string): void {
    if (table !== 'sessions') return
    let bound = false
    for (const subscriber of this.#streams.sessionBound()) {
      if (subscriber.spec?.sessionId !== id) continue
      subscriber.held = true
      bound = true
    }
    if (bound) void this.check()
  }

  reset(): void {
    for (const subscriber of this.#streams.sessionBound()) subscriber.held = true
    void this.check()
  }

  /** Reads every bound session: ends the streams of the ended ones, resumes the held others. */
  async check(): Promise<void> {
    if (this.#checking) {
      this.#again = true
      return
    }
    this.#checking = true
    try {
      do {
        this.#again = false
        await this.#checkOnce()
      } while (this.#again)
    } catch (err) {
      // Held streams stay held: the next heartbeat looks again.
      this.#log.warn({ err }, 'event stream: checking sessions failed')
    } finally {
      this.#checking = false
    }
  }

  async #checkOnce(): Promise<void> {
    const bound = [...this.#streams.sessionBound()]
    const ids = [...new Set(bound.map((subscriber) => subscriber.spec?.sessionId ?? ''))]
    if (ids.length === 0) return
    const ended = await this.#store.endedSessionsAmong(ids, Date.now())
    // A change noticed while reading: read again before resuming anything (it may be that change).
    if (this.#again) return
    for (const subscriber of bound) {
      const code = ended.get(subscriber.spec?.sessionId ?? '')
      if (code) subscriber.end(`session ended (${code})`, sessionEndFrame(code))
      else if (subscriber.held) this.#streams.unhold(subscriber)
    }
  }
}
