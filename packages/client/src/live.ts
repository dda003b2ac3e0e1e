// Live sessions on a file (docs/live.md): one WebSocket (the platform's global WebSocket: browsers,
// Node >= 22), the session's messages handed to your handlers, cameras sent at most 20 times a second
// (the latest wins), and a reconnection with a growing delay that resumes the same participant id,
// so followers keep following. Header-token clients authenticate in the first message (a global
// WebSocket cannot set headers); cookie clients by the browser's cookies; guests by a link session.

type Vec3 = [number, number, number]

export interface LiveCamera {
  position: Vec3
  target: Vec3
  up?: Vec3
  fov?: number
  ortho?: boolean
}

export interface LiveParticipant {
  participantId: string
  name: string
  email?: string
  guest: boolean
  color: string
  camera?: LiveCamera
  selection?: string[]
  following?: string | null
}

export interface LiveSettings {
  avatars: boolean
  selection: boolean
}

/** What the server sends; each handler is optional. */
export interface LiveHandlers {
  welcome(message: { you: string; participants: LiveParticipant[]; settings: LiveSettings }): void
  joined(participant: LiveParticipant): void
  left(participantId: string, reason: string): void
  camera(participantId: string, camera: LiveCamera): void
  selection(participantId: string, ids: string[]): void
  follow(participantId: string, following: string | null): void
  settings(settings: LiveSettings): void
  changed(kind: 'annotation' | 'configuration' | 'attributes' | 'file', id: string): void
  error(code: string, detail: string): void
  /** Connected and welcomed (true), or waiting to reconnect (false). */
  status(open: boolean): void
  /** The server ended the session for good (4400, 4401, 4403, 4404): no reconnection follows. */
  ended(code: string, detail: string): void
}

interface HelloFields {
  token?: string
  session?: string
  linkSession?: string
  name?: string
}

export interface LiveOptions {
  /** The API's base URL (http or https). */
  url: string
  fileId: string
  /**
   * What `hello` carries besides `resume`: tokens, or a guest's link session and name; a function is
   * asked again at each (re)connection, so a renewed link session or token is the one sent.
   */
  hello: HelloFields | (() => HelloFields)
  /** A WebSocket constructor of your own (default: globalThis.WebSocket). */
  WebSocket?: typeof WebSocket
}

const CAMERA_MS = 50
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 10_000]
const FINAL = new Set([4400, 4401, 4403, 4404])

type Message = { type: string; [key: string]: unknown }

export class LiveSession {
  readonly #options: LiveOptions
  readonly #on: Partial<LiveHandlers>
  #ws: WebSocket | null = null
  #you: string | null = null
  #attempt = 0
  #stopped = false
  #closing = { code: '', detail: '' }
  #camera: LiveCamera | null = null
  #cameraAt = 0
  #cameraTimer: ReturnType<typeof setTimeout> | undefined
  #retry: ReturnType<typeof setTimeout> | undefined

  constructor(options: LiveOptions, handlers: Partial<LiveHandlers>) {
    this.#options = options
    this.#on = handlers
    this.#connect()
  }

  /** Your participant id once welcomed. */
  get you(): string | null {
    return this.#you
  }

  /** Sends your camera; at most one per 50 ms, the latest of a burst is sent at the next slot. */
  camera(camera: LiveCamera): void {
    this.#camera = camera
    if (this.#cameraTimer) return
    const wait = Math.max(0, this.#cameraAt + CAMERA_MS - Date.now())
    this.#cameraTimer = setTimeout(() => this.#flushCamera(), wait)
  }

  selection(ids: string[]): void {
    this.#send({ type: 'selection', ids })
  }

  follow(participantId: string | null): void {
    this.#send({ type: 'follow', participantId })
  }

  /** Leaves the session (close frame 1000) and stops reconnecting. */
  close(): void {
    this.#stopped = true
    clearTimeout(this.#retry)
    clearTimeout(this.#cameraTimer)
    this.#ws?.close(1000)
    this.#ws = null
  }

  #flushCamera(): void {
    this.#cameraTimer = undefined
    if (!this.#camera) return
    this.#cameraAt = Date.now()
    this.#send({ type: 'camera', ...this.#camera })
    this.#camera = null
  }

  #send(message: Message): void {
    if (this.#ws?.readyState === 1) this.#ws.send(JSON.stringify(message))
  }

  #connect(): void {
    if (this.#stopped) return
    const { url, fileId, hello } = this.#options
    const Socket = this.#options.WebSocket ?? globalThis.WebSocket
    const ws = new Socket(
      `${url.replace(/^http/, 'ws').replace(/\/$/, '')}/live/files/${encodeURIComponent(fileId)}`,
    )
    this.#ws = ws
    // A `closed` message belongs to the connection it came on.
    this.#closing = { code: '', detail: '' }
    ws.onopen = () => {
      const fields = typeof hello === 'function' ? hello() : hello
      ws.send(JSON.stringify({ type: 'hello', ...fields, ...(this.#you ? { resume: this.#you } : {}) }))
    }
    ws.onmessage = (event) => this.#receive(JSON.parse(String(event.data)) as Message)
    ws.onclose = (event) => this.#closed(ws, event.code)
  }

  #closed(ws: WebSocket, frame: number): void {
    if (this.#ws !== ws) return
    this.#ws = null
    this.#on.status?.(false)
    if (this.#stopped) return
    if (FINAL.has(frame)) {
      this.#stopped = true
      this.#on.ended?.(this.#closing.code || String(frame), this.#closing.detail)
      return
    }
    const delay = BACKOFF_MS[Math.min(this.#attempt, BACKOFF_MS.length - 1)] ?? 10_000
    this.#attempt += 1
    this.#retry = setTimeout(() => this.#connect(), delay)
  }

  #receive(m: Message): void {
    const on = this.#on
    const id = String(m.participantId)
    switch (m.type) {
      case 'welcome':
        this.#you = String(m.you)
        this.#attempt = 0
        on.welcome?.(m as unknown as Parameters<LiveHandlers['welcome']>[0])
        on.status?.(true)
        break
      case 'joined':
        on.joined?.(m.participant as LiveParticipant)
        break
      case 'left':
        on.left?.(id, String(m.reason))
        break
      case 'camera': {
        const { type: _type, participantId: _id, ...camera } = m
        on.camera?.(id, camera as unknown as LiveCamera)
        break
      }
      case 'selection':
        on.selection?.(id, m.ids as string[])
        break
      case 'follow':
        on.follow?.(id, (m.following as string | null) ?? null)
        break
      case 'settings':
        on.settings?.({ avatars: m.avatars === true, selection: m.selection === true })
        break
      case 'changed':
        on.changed?.(m.kind as Parameters<LiveHandlers['changed']>[0], String(m.id))
        break
      case 'error':
        on.error?.(String(m.code), String(m.detail))
        break
      case 'closed':
        this.#closing = { code: String(m.code), detail: String(m.detail) }
        break
    }
  }
}

/**
 * A guest's live session with a link session (`POST /links/open`), under `name`. Pass a function
 * (e.g. `() => guest.linkSession` of a TesseraLink, which renews it) to reconnect with the current
 * one: a link session lives TESSERA_LINK_SESSION_TTL, and a reconnection with an expired one is final.
 */
export function liveAsGuest(
  options: {
    url: string
    fileId: string
    linkSession: string | (() => string)
    name?: string
    WebSocket?: typeof WebSocket
  },
  handlers: Partial<LiveHandlers>,
): LiveSession {
  const { linkSession, name, ...rest } = options
  const current = typeof linkSession === 'function' ? linkSession : () => linkSession
  return new LiveSession(
    { ...rest, hello: () => ({ linkSession: current(), ...(name ? { name } : {}) }) },
    handlers,
  )
}
