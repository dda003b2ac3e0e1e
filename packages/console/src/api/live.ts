// A live session on one file (docs/live.md) through the SDK's client (`tessera.live`, its
// LiveSession: the WebSocket, cameras at most 20 a second, reconnection that resumes the same
// participant). An account joins by its cookies; a guest by its link's session. What the console
// adds: a camera goes out only when it moved, a selection only when it changed, and after each
// welcome (a reconnection) my camera, selection and follow go out again — a server that noticed the
// drop before the resume has forgotten them — as after each change of the sharing settings.
import {
  type LiveCamera,
  type LiveHandlers,
  type LiveParticipant,
  type LiveSettings,
  liveAsGuest,
  type LiveSession as SdkLiveSession,
} from '@tessera/client'
import type { Connection } from './connection.ts'

export type { LiveCamera, LiveSettings }
export type Participant = LiveParticipant
export type ChangedKind = Parameters<LiveHandlers['changed']>[0]
export type LiveListener = Partial<LiveHandlers>

function sameCamera(a: LiveCamera | null, b: LiveCamera): boolean {
  if (!a) return false
  const near = (x: number[], y: number[]) => x.every((v, i) => Math.abs(v - (y[i] ?? 0)) < 1e-5)
  return near(a.position, b.position) && near(a.target, b.target)
}

/** The server's bound on a selection message's ids (docs/live.md). */
const MAX_SELECTION_IDS = 200
/** TESSERA_LIVE_MESSAGE_BYTES by default, until the welcome says the server's own. */
const DEFAULT_MESSAGE_BYTES = 4096

/**
 * The part of a selection a `selection` message carries: the first ids, at most 200, whose message
 * fits the server's message size (a larger one would close the connection: MESSAGE_TOO_LARGE).
 */
export function sharedSelection(ids: readonly string[], messageBytes: number): string[] {
  const out: string[] = []
  const encoder = new TextEncoder()
  // {"type":"selection","ids":[]} and, per id, its JSON string and a comma.
  let size = encoder.encode(JSON.stringify({ type: 'selection', ids: [] })).length
  for (const id of ids.slice(0, MAX_SELECTION_IDS)) {
    size += encoder.encode(JSON.stringify(id)).length + (out.length > 0 ? 1 : 0)
    if (size > messageBytes) break
    out.push(id)
  }
  return out
}

export class LiveSession {
  private readonly sdk: SdkLiveSession
  private sent: LiveCamera | null = null
  private selection: string[] = []
  /** The whole selection, of which `selection` is what went out. */
  private wanted: readonly string[] = []
  private messageBytes = DEFAULT_MESSAGE_BYTES
  private following: string | null = null

  constructor(sdk: (handlers: LiveListener) => SdkLiveSession, listener: LiveListener) {
    this.sdk = sdk({
      ...listener,
      welcome: (message) => {
        listener.welcome?.(message)
        // The server's own bound (the SDK hands the whole welcome over; older servers say none).
        const limits = (message as { limits?: { messageBytes?: unknown } }).limits
        if (typeof limits?.messageBytes === 'number') this.messageBytes = limits.messageBytes
        this.resend()
      },
      // Sharing turned back on: the server dropped what came while it was off, so everyone's
      // current camera and selection go out again (each client sends its own).
      settings: (settings) => {
        listener.settings?.(settings)
        this.resend()
      },
    })
  }

  sendCamera(camera: LiveCamera): void {
    if (sameCamera(this.sent, camera)) return
    this.sent = camera
    this.sdk.camera(camera)
  }

  /** My selection, as much of it as one message carries (sharedSelection). */
  sendSelection(all: readonly string[]): void {
    this.wanted = all
    const ids = sharedSelection(all, this.messageBytes)
    if (ids.length === this.selection.length && ids.every((id, i) => id === this.selection[i])) return
    this.selection = ids
    this.sdk.selection(ids)
  }

  sendFollow(participantId: string | null): void {
    this.following = participantId
    this.sdk.follow(participantId)
  }

  close(): void {
    this.sdk.close()
  }

  private resend(): void {
    if (this.sent) this.sdk.camera(this.sent)
    // The bound may have changed with the welcome: cut again.
    this.selection = sharedSelection(this.wanted, this.messageBytes)
    if (this.selection.length > 0) this.sdk.selection(this.selection)
    if (this.following) this.sdk.follow(this.following)
  }
}

export class Live {
  readonly #connection: Connection

  constructor(connection: Connection) {
    this.#connection = connection
  }

  /**
   * Joins the file's live session: as the signed-in account, or as `guest` (the page's link, under
   * the name they gave). The guest's hello is read again at each connection, so a reconnection
   * carries the link session the SDK renewed since, not the one of the first hello.
   */
  join(fileId: string, listener: LiveListener, guest?: { name: string }): LiveSession {
    const connection = this.#connection
    const link = guest ? connection.guest : null
    if (!guest) return new LiveSession((handlers) => connection.signedIn.live(fileId, handlers), listener)
    const linkSession = () => link?.linkSession ?? ''
    return new LiveSession(
      (handlers) => liveAsGuest({ url: connection.url, fileId, linkSession, name: guest.name }, handlers),
      listener,
    )
  }
}
