// One connected event stream, as the hub sees it: where it stands, what it wants, and its socket.
import { comment, eventFrame } from './frames.ts'
import type { Position, StreamRow } from './store.ts'

/** The transport under a stream (modules/stream writes it to the HTTP response). */
export interface StreamSink {
  write(text: string): void
  /** Bytes written and not yet handed to the kernel. */
  bufferedBytes(): number
  /** Resolves once at most `limit` bytes are unsent (at once when so), or when the sink closed. */
  drained(limit: number): Promise<void>
  /** Ends the stream after `lastWords`; the sink reports `closed` once the socket is gone. */
  end(lastWords: string): void
}

export interface StreamSpec {
  accountId: string
  /** Envelope `owner`. */
  email: string
  /** Only these events; null: all. */
  events: ReadonlySet<string> | null
  /** Resume after this event; null: from now. */
  lastEventId: string | null
  /** The auth token's expiry: the stream ends then (the client reconnects with a fresh token). */
  expiresAt: number
  /** When the auth token was issued (epoch ms): a revocation after it ends the stream. */
  issuedAt: number
  /**
   * The session the request came with (a browser sends its session cookie), or null: the stream
   * ends when that session does (taken over by a newer sign-in, ended, expired).
   */
  sessionId: string | null
  sink: StreamSink
}

export class Subscriber {
  /** Everything up to here was sent (or filtered out). */
  pos: Position = { tx: 0, seq: 0 }
  /** Fed by the hub's scans; otherwise catching up from the database on its own. */
  live = false
  /** Ended: nothing more is written. */
  ended = false
  /** Its session changed and is being checked: nothing is sent meanwhile (the hub resumes it). */
  held = false
  /** A catch-up from the database runs for it. */
  catchingUp = false
  /** Heartbeats in a row at which its buffer was over the bound. */
  strikes = 0
  spec: StreamSpec | null = null

  readonly accountId: string

  constructor(accountId: string) {
    this.accountId = accountId
  }

  /**
   * Sends `row` if the sink has room: answers false (nothing sent, `pos` unchanged) when its unsent
   * bytes are past `limit`. One frame may take it past the bound; the next one then waits.
   */
  offer(row: StreamRow, limit: number): boolean {
    const spec = this.spec
    if (this.ended || this.held || spec === null) return false
    if (spec.events !== null && !spec.events.has(row.event)) {
      this.pos = { tx: row.tx, seq: row.seq }
      return true
    }
    if (spec.sink.bufferedBytes() > limit) return false
    spec.sink.write(eventFrame(row, spec.email))
    this.pos = { tx: row.tx, seq: row.seq }
    return true
  }

  write(text: string): void {
    if (!this.ended) this.spec?.sink.write(text)
  }

  end(reason: string, lastFrame = ''): void {
    if (this.ended) return
    this.ended = true
    this.live = false
    this.spec?.sink.end(lastFrame + comment(reason))
  }
}
