// The live event stream hub of one process: it reads newly committed events from the stream's log
// (a StreamStore, store.ts) in one query per wake-up, for every connected account at once, and fans
// them out to the connected streams. Woken by emitEvent at commit in this process, by its database's
// wake-up source (dialect.ts: on PostgreSQL the NOTIFY each emitting transaction sends at commit,
// from any process) and by a poll (on SQLite, for other processes sharing the file). A stream that
// resumes (Last-Event-ID) or falls behind (its socket not draining) reads its own backlog from the
// database, never from memory, then joins the live scans.
import type { Logger } from 'pino'
import type { Config } from '../platform/config.ts'
import type { Db } from '../platform/db/index.ts'
import { AppError } from '../platform/errors.ts'
import type { Waker } from '../platform/jobs.ts'
import type { StreamWakeSource } from './dialect.ts'
import { comment, PING, resetFrame } from './frames.ts'
import { type SessionBoundStreams, StreamSessionWatch } from './sessions.ts'
import { isAfter, later, type Position, type StreamRow, type StreamStore } from './store.ts'
import { type StreamSink, type StreamSpec, Subscriber } from './subscriber.ts'

type StreamConfig = Pick<
  Config,
  'streamsPerAccount' | 'streamsMax' | 'streamHeartbeatMs' | 'streamBufferLimit' | 'streamPollMs'
>

export interface StreamHubOptions {
  /** The database emitEvent must write to for its commits to wake this hub (events/outbox.ts). */
  db: Db
  config: StreamConfig
  log: Logger
  /** The log's reads on that database. */
  store: StreamStore
  wakeSource: StreamWakeSource
}

export interface StreamStats {
  streams: number
  /** Bytes written to streams and not yet handed to the kernel, all streams together. */
  bufferedBytes: number
  /** The most one stream ever held unsent right after a write (the bound plus one frame at most). */
  peakStreamBytes: number
  /** Streams disconnected for not draining. */
  cutOff: number
}

/** Rows per query: a scan, or one stream's catch-up. */
const BATCH = 500
/** The fewest rows a catch-up reads at a time. */
const MIN_CATCH_UP = 4
/** Catch-up rows a stream may keep in memory while it waits for its socket (JSON text bytes). */
const HELD_BYTES = 1024 * 1024
/** Looking again while an older transaction holds committed events back: from 5 ms, doubling. */
const HELD_RETRY_MS = [5, 10, 20, 40, 80]

export class StreamHub implements Waker, SessionBoundStreams {
  readonly db: Db
  readonly #options: StreamHubOptions
  readonly #store: StreamStore
  readonly #byAccount = new Map<string, Set<Subscriber>>()
  #count = 0
  /** Every row up to here was fanned out to the live streams. */
  #cursor: Position | null = null
  #scanning = false
  #again = false
  #heldRetries = 0
  /** Counts accounts that got their first stream: a scan sees whether any joined while it ran. */
  #accountsJoined = 0
  #timers: NodeJS.Timeout[] = []
  /** Stops the wake-up source (listening for other processes' commits). */
  #unlisten: (() => void) | null = null
  #closed = false
  #peak = 0
  #cutOff = 0
  readonly #sessions: StreamSessionWatch

  constructor(options: StreamHubOptions) {
    this.#options = options
    this.db = options.db
    this.#store = options.store
    this.#sessions = new StreamSessionWatch(this, options.db, options.store, options.log)
  }

  /**
   * Takes a stream slot for `accountId` (429 past either bound), synchronously so concurrent
   * connections cannot overshoot; `start` it, or `release` it if the connection went away first.
   */
  admit(accountId: string): Subscriber {
    const { streamsPerAccount, streamsMax } = this.#options.config
    if (this.#closed) throw new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down.')
    const mine = this.#byAccount.get(accountId) ?? new Set<Subscriber>()
    if (mine.size >= streamsPerAccount) {
      throw new AppError(
        'STREAM_LIMIT_REACHED',
        `At most ${streamsPerAccount} open event streams per account (TESSERA_STREAMS_PER_ACCOUNT); close one first.`,
      )
    }
    if (this.#count >= streamsMax) {
      throw new AppError('STREAMS_BUSY', 'This server holds as many event streams as it may; retry later.', {
        'retry-after': '5',
      })
    }
    const subscriber = new Subscriber(accountId)
    if (mine.size === 0) this.#accountsJoined += 1
    mine.add(subscriber)
    this.#byAccount.set(accountId, mine)
    this.#count += 1
    if (this.#count === 1) this.#startTimers()
    return subscriber
  }

  /** Frees the slot of a stream that closed (its socket is gone). */
  release(subscriber: Subscriber): void {
    subscriber.ended = true
    subscriber.live = false
    const mine = this.#byAccount.get(subscriber.accountId)
    if (!mine?.delete(subscriber)) return
    if (mine.size === 0) this.#byAccount.delete(subscriber.accountId)
    this.#count -= 1
    if (this.#count === 0) this.#stopTimers()
  }

  /**
   * Fixes where the stream starts (after `want.lastEventId`, or now; an unknown id gets a reset),
   * then calls `open` (which sends the answer's headers) and starts sending. The order is the
   * contract: a client that saw the answer and then committed an event receives it; were the
   * headers first, its event could commit before the starting point was read, and be skipped.
   * A failure before `open` throws, so the request answers a problem document.
   */
  async start(subscriber: Subscriber, want: Omit<StreamSpec, 'sink'>, open: () => StreamSink): Promise<void> {
    const cursor = await this.#ensureCursor()
    const resumeAt = want.lastEventId ? await this.#store.positionOf(want.lastEventId, want.accountId) : null
    subscriber.pos = resumeAt ?? cursor
    const sink = open()
    if (subscriber.ended) {
      // Released (the client left) or ended (shutdown) while the position was read.
      sink.end(comment('stream ended; reconnect with Last-Event-ID'))
      return
    }
    subscriber.spec = { ...want, sink }
    if (want.sessionId !== null) this.#sessions.start()
    if (want.lastEventId && !resumeAt) subscriber.write(resetFrame(want.lastEventId))
    void this.#catchUp(subscriber)
  }

  *sessionBound(): Iterable<Subscriber> {
    for (const subscriber of this.#all())
      if (subscriber.spec?.sessionId && !subscriber.ended) yield subscriber
  }

  unhold(subscriber: Subscriber): void {
    subscriber.held = false
    if (!subscriber.live && !subscriber.ended) void this.#catchUp(subscriber)
  }

  /** Something committed: scan soon (wake-ups during a scan make one more scan). */
  wake(): void {
    if (this.#count === 0 || this.#cursor === null || this.#closed) return
    if (this.#scanning) {
      this.#again = true
      return
    }
    this.#scanning = true
    setImmediate(() => void this.#scanLoop())
  }

  stats(): StreamStats {
    let bufferedBytes = 0
    for (const subscriber of this.#all()) bufferedBytes += subscriber.spec?.sink.bufferedBytes() ?? 0
    return { streams: this.#count, bufferedBytes, peakStreamBytes: this.#peak, cutOff: this.#cutOff }
  }

  /** Ends every stream (they may resume elsewhere) and stops listening. */
  async close(): Promise<void> {
    this.#closed = true
    for (const subscriber of this.#all()) subscriber.end('server shutting down; reconnect with Last-Event-ID')
    this.#stopTimers()
    this.#unlisten?.()
    this.#unlisten = null
    await this.#sessions.stop()
  }

  *#all(): Iterable<Subscriber> {
    for (const set of this.#byAccount.values()) yield* set
  }

  /** The hub's position, made current when no stream kept it moving. */
  async #ensureCursor(): Promise<Position> {
    const live = [...this.#all()].some((s) => s.live)
    if (this.#cursor === null || !live) {
      const head = await this.#store.head()
      this.#cursor = this.#cursor === null ? head : later(this.#cursor, head)
    }
    return this.#cursor
  }

  /** Reads one stream's rows up to the hub's position, pausing while its socket is full; then live. */
  async #catchUp(subscriber: Subscriber): Promise<void> {
    // One reader per stream (unhold may ask while one runs): two would send the same rows.
    if (subscriber.catchingUp) return
    subscriber.catchingUp = true
    const limit = this.#options.config.streamBufferLimit
    let batch = BATCH
    try {
      // Held (its session is being checked): unhold starts it again.
      while (!subscriber.ended && !subscriber.held) {
        const bound = this.#cursor
        if (bound === null || !isAfter(bound, subscriber.pos)) {
          subscriber.live = true
          return
        }
        await subscriber.spec?.sink.drained(limit)
        if (subscriber.ended) return
        const rows = await this.#store.catchUp(subscriber.accountId, subscriber.pos, bound, batch)
        const sent = await this.#sendInOrder(subscriber, rows, limit)
        if (sent === rows.length && rows.length < batch) subscriber.pos = later(subscriber.pos, bound)
        // Rows too big to wait with: read fewer next time (one frame sent per read of 500 was
        // quadratic), more again once a whole read went.
        batch = sent < rows.length ? Math.max(MIN_CATCH_UP, sent * 2) : Math.min(BATCH, batch * 2)
      }
    } catch (err) {
      this.#options.log.warn({ err }, 'event stream: catching up failed; the stream ends')
      subscriber.end('server error; reconnect with Last-Event-ID')
    } finally {
      subscriber.catchingUp = false
    }
  }

  /**
   * Sends `rows` in order, waiting for the socket between them, and answers how many went. It
   * stops early (the rest is read again) when the rows it would keep waiting with exceed
   * HELD_BYTES: a slow stream holds little memory, yet a read is not thrown away for one frame.
   */
  async #sendInOrder(subscriber: Subscriber, rows: StreamRow[], limit: number): Promise<number> {
    let held = 0
    for (const row of rows) held += row.data.length
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as StreamRow
      while (!this.#offer(subscriber, row, limit)) {
        if (subscriber.ended || subscriber.held || held > HELD_BYTES) return i
        await subscriber.spec?.sink.drained(limit)
      }
      held -= row.data.length
    }
    return rows.length
  }

  #offer(subscriber: Subscriber, row: StreamRow, limit: number): boolean {
    const sent = subscriber.offer(row, limit)
    if (sent) this.#peak = Math.max(this.#peak, subscriber.spec?.sink.bufferedBytes() ?? 0)
    return sent
  }

  async #scanLoop(): Promise<void> {
    let held = false
    try {
      do {
        this.#again = false
        const cursor = this.#cursor
        if (cursor === null || this.#count === 0) break
        const accounts = [...this.#byAccount.keys()]
        const joined = this.#accountsJoined
        const result = await this.#store.scan(cursor, accounts, BATCH)
        // The position moves before the fan-out: a stream that cannot take a row of this batch
        // starts catching up from the database at once, and its catch-up must cover the whole batch
        // (with the old position it went live again at once and lost the batch's later rows).
        this.#cursor = later(this.#cursor ?? cursor, result.next)
        this.#fanOut(result.rows)
        if (this.#accountsJoined !== joined) this.#catchUpUnscanned(accounts)
        if (result.rows.length >= BATCH) this.#again = true
        held = result.held
      } while (this.#again && !this.#closed)
    } catch (err) {
      this.#options.log.warn({ err }, 'event stream: reading new events failed; retrying at the next poll')
    } finally {
      this.#scanning = false
    }
    this.#retryIfHeld(held)
  }

  #fanOut(rows: StreamRow[]): void {
    const limit = this.#options.config.streamBufferLimit
    for (const row of rows) {
      for (const subscriber of this.#byAccount.get(row.account_id) ?? []) {
        if (!subscriber.live || !isAfter(row, subscriber.pos)) continue
        if (subscriber.held) {
          subscriber.live = false
          continue
        }
        // No room: it stops being fed and reads the rest from the database once it drains.
        if (!this.#offer(subscriber, row, limit)) {
          subscriber.live = false
          void this.#catchUp(subscriber)
        }
      }
    }
  }

  /**
   * Live streams of accounts that connected while a scan ran: the scan did not read their rows, yet
   * the position moved past whatever committed meanwhile, so they read that stretch from the
   * database (then go live again).
   */
  #catchUpUnscanned(scanned: string[]): void {
    const read = new Set(scanned)
    for (const [accountId, subscribers] of this.#byAccount) {
      if (read.has(accountId)) continue
      for (const subscriber of subscribers) {
        if (!subscriber.live) continue
        subscriber.live = false
        void this.#catchUp(subscriber)
      }
    }
  }

  #retryIfHeld(held: boolean): void {
    if (!held || this.#closed) {
      this.#heldRetries = 0
      return
    }
    const delay = HELD_RETRY_MS[Math.min(this.#heldRetries, HELD_RETRY_MS.length - 1)] ?? 80
    this.#heldRetries += 1
    setTimeout(() => this.wake(), delay).unref()
  }

  #startTimers(): void {
    const { config, log, wakeSource } = this.#options
    this.#timers.push(setInterval(() => this.wake(), wakeSource.pollMs(config.streamPollMs)).unref())
    this.#timers.push(setInterval(() => void this.#heartbeat(), config.streamHeartbeatMs).unref())
    this.#unlisten ??= wakeSource.listen(() => this.wake(), log)
  }

  #stopTimers(): void {
    for (const timer of this.#timers) clearInterval(timer)
    this.#timers = []
  }

  /**
   * Every stream gets a ping; one still over the buffer bound at two heartbeats in a row is not
   * draining and is disconnected; expired or revoked tokens and disabled accounts end their streams.
   */
  async #heartbeat(): Promise<void> {
    const now = Date.now()
    const limit = this.#options.config.streamBufferLimit
    for (const subscriber of this.#all()) {
      const spec = subscriber.spec
      if (spec === null || subscriber.ended) continue
      if (now >= spec.expiresAt) {
        subscriber.end('auth token expired; reconnect with a fresh token and Last-Event-ID')
      } else if (spec.sink.bufferedBytes() > limit) {
        subscriber.strikes += 1
        if (subscriber.strikes >= 2) {
          this.#cutOff += 1
          subscriber.end('disconnected: the stream was not read fast enough; reconnect with Last-Event-ID')
        }
      } else {
        subscriber.strikes = 0
        subscriber.write(PING)
      }
    }
    await this.#endRefused()
    await this.#sessions.check()
  }

  async #endRefused(): Promise<void> {
    const accounts = [...this.#byAccount.keys()]
    if (accounts.length === 0) return
    try {
      for (const refusal of await this.#store.refusalsAmong(accounts)) {
        for (const subscriber of this.#byAccount.get(refusal.id) ?? []) {
          const issuedAt = subscriber.spec?.issuedAt ?? 0
          if (refusal.disabled) subscriber.end('account disabled')
          else if (issuedAt < refusal.tokensValidAfter) {
            subscriber.end(
              'auth token revoked (password change); reconnect with a fresh token and Last-Event-ID',
            )
          }
        }
      }
    } catch (err) {
      this.#options.log.warn({ err }, 'event stream: checking accounts failed')
    }
  }
}
