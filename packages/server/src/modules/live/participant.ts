// One participant connected to this process: its socket (a LiveSink), who it is, and the coalescing
// of what it sends (docs/live.md "Bounds").
import type { ParticipantRecord } from './bus.ts'
import type { ParticipantView } from './protocol.ts'

/** The transport of one participant (routes.ts wraps the WebSocket). */
export interface LiveSink {
  send(text: string): void
  /** A message that may be skipped while the socket does not drain (cameras: the next one is newer). */
  sendLossy(text: string): void
  /** Sends `closed {code, detail}`, then the close frame. */
  close(code: string, status: number, detail: string): void
  /** Resolves once the socket closed (its close handshake done, or given up on). */
  whenClosed(): Promise<void>
}

/** Who a participant is, as the join checked it; the re-checks read these again. */
export interface LiveIdentity {
  accountId: string | null
  sessionId: string | null
  /** When the account's auth token was issued (a revocation after it ends the connection). */
  issuedAt: number
  linkId: string | null
  name: string
  email?: string
}

/** At most one value per interval; a value offered sooner waits, replaced by later ones. */
export class Coalescer<T> {
  readonly #intervalMs: number
  readonly #send: (value: T) => void
  #lastAt = 0
  #pending: { value: T } | null = null
  #timer: NodeJS.Timeout | null = null

  constructor(intervalMs: number, send: (value: T) => void) {
    this.#intervalMs = intervalMs
    this.#send = send
  }

  offer(value: T): void {
    const now = performance.now()
    const wait = this.#lastAt + this.#intervalMs - now
    if (wait <= 0 && this.#timer === null) {
      this.#lastAt = now
      this.#send(value)
      return
    }
    this.#pending = { value }
    this.#timer ??= setTimeout(() => this.#flush(), Math.max(0, wait))
  }

  #flush(): void {
    this.#timer = null
    const pending = this.#pending
    this.#pending = null
    if (pending === null) return
    this.#lastAt = performance.now()
    this.#send(pending.value)
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    this.#pending = null
  }
}

/** A token bucket: `rate` a second, bursts of twice that. */
export class Bucket {
  readonly #rate: number
  #tokens: number
  #at = performance.now()

  constructor(rate: number) {
    this.#rate = rate
    this.#tokens = rate * 2
  }

  take(): boolean {
    const now = performance.now()
    this.#tokens = Math.min(this.#rate * 2, this.#tokens + ((now - this.#at) / 1000) * this.#rate)
    this.#at = now
    if (this.#tokens < 1) return false
    this.#tokens -= 1
    return true
  }
}

export class LocalParticipant {
  readonly fileId: string
  readonly record: ParticipantRecord
  readonly identity: LiveIdentity
  readonly sink: LiveSink
  gone = false
  camera: Coalescer<NonNullable<ParticipantRecord['camera']>> | null = null
  selection: Coalescer<string[]> | null = null

  constructor(fileId: string, record: ParticipantRecord, identity: LiveIdentity, sink: LiveSink) {
    this.fileId = fileId
    this.record = record
    this.identity = identity
    this.sink = sink
  }

  get guest(): boolean {
    return this.identity.accountId === null
  }

  stop(): void {
    this.gone = true
    this.camera?.stop()
    this.selection?.stop()
  }
}

/** A participant as `viewer` may see it: e-mails only for accounts. */
export function viewOf(record: ParticipantRecord, forGuest: boolean): ParticipantView {
  const view: ParticipantView = {
    participantId: record.id,
    name: record.name,
    guest: record.guest,
    color: record.color,
  }
  if (record.email !== undefined && !forGuest) view.email = record.email
  if (record.camera !== undefined) view.camera = record.camera
  if (record.selection !== undefined) view.selection = record.selection
  if (record.following !== undefined) view.following = record.following
  return view
}
