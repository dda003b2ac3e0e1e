// One live WebSocket: its sink (sending, skipping cameras for a reader that does not drain, closing
// with `closed` first), the first message (`hello`), the bounds on what the client sends (size,
// rate, idle: docs/live.md "Bounds"), and its messages handed to the hub.
import type { WebSocket } from 'ws'
import type { Config } from '../../platform/config.ts'
import { AppError } from '../../platform/errors.ts'
import type { LiveHub } from './hub.ts'
import { Bucket, type LiveIdentity, type LiveSink, type LocalParticipant } from './participant.ts'
import { BadMessage, type ClientMessage, closeNumber, type Hello, parseClientMessage } from './protocol.ts'

const HELLO_MS = 10_000
/** How long a closed socket's peer may take to answer the close frame. */
const CLOSE_GRACE_MS = 2000
/** Queued bytes past which camera messages are skipped for a reader. */
const LOSSY_BYTES = 256 * 1024
/** Queued bytes past which a reader is closed. */
const SLOW_BYTES = 4 * 1024 * 1024
/** A client's camera messages past this many times the camera rate are dropped before parsing. */
const CAMERA_FLOOD = 3

type ConnectionConfig = Pick<Config, 'liveMessageBytes' | 'liveIdleMs' | 'liveMessageRate' | 'liveCameraRate'>

function socketSink(socket: WebSocket): LiveSink {
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  const sink: LiveSink = {
    whenClosed: () => closed,
    send(text) {
      if (socket.readyState !== socket.OPEN) return
      if (socket.bufferedAmount > SLOW_BYTES) {
        sink.close('SLOW_CONSUMER', 429, 'The connection did not read its messages fast enough.')
        return
      }
      socket.send(text)
    },
    sendLossy(text) {
      if (socket.readyState === socket.OPEN && socket.bufferedAmount <= LOSSY_BYTES) socket.send(text)
    },
    close(code, status, detail) {
      if (socket.readyState !== socket.OPEN) return
      socket.send(JSON.stringify({ type: 'closed', code, detail }))
      // A close frame's reason is at most 123 bytes.
      socket.close(closeNumber(code, status), Buffer.from(code).subarray(0, 123).toString())
      // A peer that does not answer the close frame loses its socket.
      setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref()
    },
  }
  return sink
}

export interface ConnectionOptions {
  hub: LiveHub
  config: ConnectionConfig
  fileId: string
  /** Who the `hello` names (its tokens, link session, or the upgrade request's credentials). */
  identify(hello: Hello): Promise<LiveIdentity>
  onError(err: unknown): void
}

export class LiveConnection {
  readonly #socket: WebSocket
  readonly #sink: LiveSink
  readonly #options: ConnectionOptions
  readonly #bucket: Bucket
  readonly #cameraBucket: Bucket
  #local: LocalParticipant | null = null
  #helloSeen = false
  #heardAt = Date.now()
  #rateNoticeAt = 0
  readonly #timers: NodeJS.Timeout[] = []

  constructor(socket: WebSocket, options: ConnectionOptions) {
    this.#socket = socket
    this.#sink = socketSink(socket)
    this.#options = options
    this.#bucket = new Bucket(options.config.liveMessageRate)
    this.#cameraBucket = new Bucket(options.config.liveCameraRate * CAMERA_FLOOD)
    socket.on('message', (data, isBinary) => this.#onMessage(data as Buffer, isBinary))
    socket.on('pong', () => {
      this.#heardAt = Date.now()
    })
    socket.on('close', () => this.#onClose())
    socket.on('error', () => socket.terminate())
    const hello = setTimeout(() => {
      if (!this.#helloSeen) this.#sink.close('HELLO_TIMEOUT', 408, 'The first message must be hello.')
    }, HELLO_MS)
    const idleMs = options.config.liveIdleMs
    const idle = setInterval(() => this.#checkIdle(idleMs), Math.max(50, Math.floor(idleMs / 3)))
    this.#timers.push(hello, idle)
    for (const timer of this.#timers) timer.unref()
  }

  #checkIdle(idleMs: number): void {
    if (Date.now() - this.#heardAt >= idleMs) {
      this.#close('IDLE_TIMEOUT', 408, `No message and no pong for ${Math.round(idleMs / 1000)} s.`)
    } else if (this.#socket.readyState === this.#socket.OPEN) {
      this.#socket.ping()
    }
  }

  #close(code: string, status: number, detail: string): void {
    if (this.#local) this.#options.hub.end(this.#local, code, status, detail)
    else this.#sink.close(code, status, detail)
  }

  #onClose(): void {
    for (const timer of this.#timers) clearTimeout(timer)
    if (this.#local) this.#options.hub.leave(this.#local, 'left')
  }

  #onMessage(data: Buffer, isBinary: boolean): void {
    this.#heardAt = Date.now()
    const { liveMessageBytes } = this.#options.config
    if (isBinary) this.#close('BAD_MESSAGE', 400, 'Messages are JSON text frames.')
    else if (data.length > liveMessageBytes) {
      this.#close('MESSAGE_TOO_LARGE', 413, `Messages are at most ${liveMessageBytes} bytes.`)
    } else this.#onText(data.toString('utf8'))
  }

  #onText(text: string): void {
    let message: ClientMessage
    try {
      message = parseClientMessage(text)
    } catch (err) {
      if (!(err instanceof BadMessage)) throw err
      if (this.#helloSeen) this.#error('BAD_MESSAGE', err.message)
      else this.#close('BAD_MESSAGE', 400, `hello: ${err.message}`)
      return
    }
    if (!this.#helloSeen) {
      if (message.type !== 'hello') this.#close('BAD_MESSAGE', 400, 'The first message must be hello.')
      else {
        this.#helloSeen = true
        void this.#join(message)
      }
      return
    }
    // Sent before the welcome came: the client is not in the session yet.
    if (this.#local !== null) this.#handle(this.#local, message)
  }

  async #join(hello: Hello): Promise<void> {
    const { hub, fileId } = this.#options
    try {
      const identity = await this.#options.identify(hello)
      if (this.#socket.readyState !== this.#socket.OPEN) return
      this.#local = await hub.join(fileId, identity, hello.resume, this.#sink)
      // The socket may have closed while joining: leave at once.
      if (this.#socket.readyState !== this.#socket.OPEN) hub.leave(this.#local, 'left')
    } catch (err) {
      if (err instanceof AppError) this.#sink.close(err.code, err.status, err.message)
      else {
        this.#options.onError(err)
        this.#sink.close('INTERNAL', 500, 'The server could not join you to the session.')
      }
    }
  }

  #handle(local: LocalParticipant, message: ClientMessage): void {
    const { hub } = this.#options
    if (message.type === 'camera') {
      if (!this.#cameraBucket.take()) return
      const { type: _type, ...camera } = message
      // While avatars are off a camera is dropped without a word: clients send them unasked.
      hub.camera(local, camera)
      return
    }
    if (!this.#bucket.take()) {
      const now = Date.now()
      if (now - this.#rateNoticeAt >= 1000) {
        this.#rateNoticeAt = now
        this.#error('RATE_LIMITED', `At most ${this.#options.config.liveMessageRate} messages a second.`)
      }
      return
    }
    if (message.type === 'selection') {
      if (!hub.selection(local, message.ids))
        this.#error('NOT_ALLOWED', 'Shared selection is off on this file.')
    } else if (message.type === 'follow') {
      if (!hub.follow(local, message.participantId)) this.#error('NOT_ALLOWED', 'No such other participant.')
    } else if (message.type === 'ping') {
      this.#sink.send('{"type":"pong"}')
    } else {
      this.#error('BAD_MESSAGE', 'hello was sent already.')
    }
  }

  #error(code: string, detail: string): void {
    this.#sink.send(JSON.stringify({ type: 'error', code, detail }))
  }
}
