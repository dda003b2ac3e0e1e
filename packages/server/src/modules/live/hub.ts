// The live hub of one server process: the participants of every file (this process's, and the other
// processes' as the relay told of them), what they send, and the relay (bus.ts) in both directions.
// A participant's state (camera, selection, following) lives on every hub, so a welcome lists
// everyone at once, on whichever process a client connects to.
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { Config } from '../../platform/config.ts'
import { AppError } from '../../platform/errors.ts'
import type { BusListener, LiveBus, ParticipantRecord, RelayMessage } from './bus.ts'
import { Coalescer, type LiveIdentity, type LiveSink, LocalParticipant, viewOf } from './participant.ts'
import { Presence } from './presence.ts'
import { type Camera, colorOf, type LiveSettingsView, type ParticipantView } from './protocol.ts'

type LiveConfig = Pick<
  Config,
  | 'liveParticipantsPerFile'
  | 'liveConnectionsPerAccount'
  | 'liveGuestsPerLink'
  | 'liveCameraRate'
  | 'liveMessageBytes'
  | 'liveIdleMs'
>

export interface LiveHubOptions {
  bus: LiveBus
  config: LiveConfig
  log: Logger
  /** The file's settings (its start configuration: docs/live.md "Settings"). */
  settingsOf(fileId: string): Promise<LiveSettingsView>
  /** Reads again whether these participants may stay (an access change on their file). */
  recheck(participants: LocalParticipant[]): void
  /** The hub closed. */
  stopped(): Promise<void>
}

/** Selections relayed per participant and second at most (coalesced like cameras). */
const SELECTION_RATE = 5

export class LiveHub implements BusListener {
  readonly id = randomBytes(8).toString('hex')
  readonly #options: LiveHubOptions
  readonly #presence: Presence
  /** Local connections per account, and per link for its guests (counterKey). */
  readonly #perHolder = new Map<string, number>()
  readonly #settings = new Map<string, LiveSettingsView>()
  #unsubscribe: (() => void) | null = null
  #closed = false

  constructor(options: LiveHubOptions) {
    this.#options = options
    this.#presence = new Presence(this.id, options.bus, {
      toLocals: (fileId, make, except) => this.#toLocals(fileId, make, except),
      replacedElsewhere: (local) => this.#drop(local, 'resumed on another connection'),
      changed: (fileId, kind, id) => this.#changed(fileId, kind, id),
    })
  }

  start(): void {
    if (this.#unsubscribe || this.#closed) return
    this.#unsubscribe = this.#options.bus.subscribe(this)
    this.#presence.start()
  }

  receive(message: RelayMessage): void {
    this.#presence.receive(message)
  }

  up(): void {
    this.#presence.up()
  }

  /** The participants connected to this process. */
  locals(): LocalParticipant[] {
    return this.#presence.locals()
  }

  /** Every participant of the file the hub knows of (all processes). */
  participantsOf(fileId: string): ParticipantRecord[] {
    return this.#presence.recordsOf(fileId)
  }

  /**
   * Joins the file (after its access was checked): the welcome to `sink`, `joined` to everyone else.
   * Throws LIVE_FILE_FULL or LIVE_CONNECTIONS_LIMIT.
   */
  async join(fileId: string, identity: LiveIdentity, resume: string | undefined, sink: LiveSink) {
    if (this.#closed) throw new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down.')
    // Each guest connection is someone of its own: a `who` shared by a link's guests would let one
    // resume (take over) another's participant ID, which everyone on the file is told.
    const who = identity.accountId ?? `link:${identity.linkId}:${randomBytes(8).toString('hex')}`
    const holder = counterKey(identity)
    // Refused before the settings' read, and again after it (joins racing during the read).
    this.#checkBounds(fileId, resume, holder)
    const settings = await this.#options.settingsOf(fileId)
    // From here on nothing awaits: the bounds cannot be overshot by joins racing each other.
    const id = this.#presence.idFor(fileId, who, resume) ?? randomBytes(16).toString('hex')
    this.#checkBounds(fileId, id, holder)
    this.#settings.set(fileId, settings)
    const record: ParticipantRecord = {
      id,
      name: identity.name,
      guest: identity.accountId === null,
      color: this.#colorFor(fileId, who, identity.accountId ?? id),
      who,
    }
    if (identity.email !== undefined) record.email = identity.email
    const local = new LocalParticipant(fileId, record, identity, sink)
    this.#wire(local)
    this.#perHolder.set(holder, (this.#perHolder.get(holder) ?? 0) + 1)
    const { config } = this.#options
    sink.send(
      JSON.stringify({
        type: 'welcome',
        you: id,
        participants: [...this.#presence.recordsOf(fileId).filter((r) => r.id !== id), record].map((r) =>
          sharedNow(viewOf(r, local.guest), settings),
        ),
        settings,
        limits: {
          cameraPerSecond: config.liveCameraRate,
          messageBytes: config.liveMessageBytes,
          idleSeconds: Math.round(config.liveIdleMs / 1000),
        },
      }),
    )
    this.#presence.addLocal(local)
    return local
  }

  /** The colour `who` already shows on the file (another tab), else one nobody else there shows. */
  #colorFor(fileId: string, who: string, key: string): string {
    const records = this.#presence.recordsOf(fileId)
    const own = records.find((r) => r.who === who)
    if (own) return own.color
    return colorOf(key, new Set(records.map((r) => r.color)))
  }

  #checkBounds(fileId: string, id: string | undefined, holder: string): void {
    const { liveParticipantsPerFile, liveConnectionsPerAccount, liveGuestsPerLink } = this.#options.config
    const others = this.#presence.recordsOf(fileId).filter((r) => r.id !== id).length
    if (others >= liveParticipantsPerFile) {
      throw new AppError('LIVE_FILE_FULL', `At most ${liveParticipantsPerFile} participants per file.`)
    }
    const held = this.#perHolder.get(holder) ?? 0
    if (holder.startsWith('link:') && held >= liveGuestsPerLink) {
      throw new AppError(
        'LIVE_CONNECTIONS_LIMIT',
        `At most ${liveGuestsPerLink} guests of one link per server (TESSERA_LIVE_GUESTS_PER_LINK).`,
      )
    }
    if (!holder.startsWith('link:') && held >= liveConnectionsPerAccount) {
      throw new AppError(
        'LIVE_CONNECTIONS_LIMIT',
        `At most ${liveConnectionsPerAccount} live connections per account; close one first.`,
      )
    }
  }

  #wire(local: LocalParticipant): void {
    local.camera = new Coalescer(1000 / this.#options.config.liveCameraRate, (camera: Camera) => {
      if (!local.gone) this.#presence.camera(local, camera)
    })
    local.selection = new Coalescer(1000 / SELECTION_RATE, (ids: string[]) => {
      if (!local.gone) this.#presence.selection(local, ids)
    })
  }

  /** Whether cameras (avatars) and selections are shared on the file now. */
  settingsNow(fileId: string): LiveSettingsView {
    return this.#settings.get(fileId) ?? { avatars: true, selection: true }
  }

  /** A camera from the participant: relayed (coalesced) while avatars are on; false when off. */
  camera(local: LocalParticipant, camera: Camera): boolean {
    if (!this.settingsNow(local.fileId).avatars) return false
    local.camera?.offer(camera)
    return true
  }

  /** A selection from the participant: relayed (coalesced) while selections are shared; false when off. */
  selection(local: LocalParticipant, ids: string[]): boolean {
    if (!this.settingsNow(local.fileId).selection) return false
    local.selection?.offer(ids)
    return true
  }

  /** Start or stop following; false when `target` is not someone else on the file. */
  follow(local: LocalParticipant, target: string | null): boolean {
    if (target !== null && (target === local.record.id || !this.#presence.has(local.fileId, target)))
      return false
    this.#presence.follow(local, target)
    return true
  }

  /** The participant's connection ended (it left, or the server closed it). */
  leave(local: LocalParticipant, reason: 'left' | 'closed'): void {
    if (local.gone) return
    this.#release(local)
    this.#presence.removeLocal(local, reason)
    if (!this.#presence.hasLocals(local.fileId)) this.#settings.delete(local.fileId)
  }

  /** Closes the connection with `closed {code, detail}` and makes it leave. */
  end(local: LocalParticipant, code: string, status: number, detail: string): void {
    if (local.gone) return
    local.sink.close(code, status, detail)
    this.leave(local, 'closed')
  }

  #drop(local: LocalParticipant, detail: string): void {
    this.#release(local)
    local.sink.close('LEFT', 200, detail)
  }

  #release(local: LocalParticipant): void {
    local.stop()
    const holder = counterKey(local.identity)
    const count = (this.#perHolder.get(holder) ?? 1) - 1
    if (count > 0) this.#perHolder.set(holder, count)
    else this.#perHolder.delete(holder)
  }

  #toLocals(
    fileId: string,
    make: (forGuest: boolean) => { text: string; lossy?: boolean } | null,
    except?: LocalParticipant,
  ): void {
    const texts: Array<{ text: string; lossy?: boolean } | null | undefined> = [undefined, undefined]
    for (const local of this.#presence.localsOf(fileId)) {
      if (local === except) continue
      const slot = local.guest ? 1 : 0
      if (texts[slot] === undefined) texts[slot] = make(local.guest)
      const out = texts[slot]
      if (!out) continue
      if (out.lossy) local.sink.sendLossy(out.text)
      else local.sink.send(out.text)
    }
  }

  #changed(fileId: string, kind: string, id: string): void {
    if (!this.#presence.hasLocals(fileId)) return
    if (kind === 'access') {
      this.#options.recheck(this.#presence.localsOf(fileId))
      return
    }
    const text = JSON.stringify({ type: 'changed', kind, id })
    this.#toLocals(fileId, () => ({ text }))
    if (kind === 'configuration') void this.#refreshSettings(fileId)
  }

  async #refreshSettings(fileId: string): Promise<void> {
    try {
      const fresh = await this.#options.settingsOf(fileId)
      const known = this.#settings.get(fileId)
      if (!known || !this.#presence.hasLocals(fileId)) return
      if (known.avatars === fresh.avatars && known.selection === fresh.selection) return
      this.#settings.set(fileId, fresh)
      const text = JSON.stringify({ type: 'settings', ...fresh })
      this.#toLocals(fileId, () => ({ text }))
    } catch (err) {
      this.#options.log.warn({ err }, 'live sessions: reading the file settings failed')
    }
  }

  /** Every connection closes (they reconnect to another process); the others hear at once. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const closing = this.#presence.locals()
    for (const local of closing) {
      this.end(local, 'SERVER_SHUTTING_DOWN', 503, 'The server is shutting down; reconnect.')
    }
    await Promise.all(closing.map((local) => local.sink.whenClosed()))
    this.#presence.stop()
    this.#unsubscribe?.()
    this.#unsubscribe = null
    await this.#options.stopped()
  }
}

/** Whose connections a join counts against: the account's, or (guests) the link's. */
function counterKey(identity: LiveIdentity): string {
  return identity.accountId ?? `link:${identity.linkId}`
}

/** A participant as a newcomer may see it: no camera while avatars are off, no selection while selections are. */
function sharedNow(view: ParticipantView, settings: LiveSettingsView): ParticipantView {
  if (!settings.avatars) delete view.camera
  if (!settings.selection) delete view.selection
  return view
}
