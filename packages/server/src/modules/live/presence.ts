// Who is on which file, across processes: this process's participants and those the relay told of,
// kept in step through the relay messages of bus.ts. Each process says it is alive every
// HEARTBEAT_MS with the number of its participants; one not heard of for EXPIRY_MS is gone (killed,
// cut off) and its participants leave everywhere; a count that does not match what this process
// knows of it (a message lost while a LISTEN connection was down) makes it ask for that process's
// roster, which replaces what it knew.
import type { BusListener, ChangeKind, LiveBus, ParticipantRecord, RelayMessage } from './bus.ts'
import { type LocalParticipant, viewOf } from './participant.ts'
import type { Camera } from './protocol.ts'

const HEARTBEAT_MS = 1000
const EXPIRY_MS = 4000
/** A roster is asked of one process at most this often. */
const ASK_AGAIN_MS = 2000

interface Known {
  record: ParticipantRecord
  hub: string
  local: LocalParticipant | null
}

type Outgoing = { text: string; lossy?: boolean } | null

export interface PresenceEvents {
  /** Sends to this process's participants on the file (`make` once per audience: accounts, guests). */
  toLocals(fileId: string, make: (forGuest: boolean) => Outgoing, except?: LocalParticipant): void
  /** A participant of this process resumed on another connection: drop this one silently. */
  replacedElsewhere(local: LocalParticipant): void
  changed(fileId: string, kind: ChangeKind, id: string): void
}

export class Presence implements Pick<BusListener, 'receive' | 'up'> {
  readonly #me: string
  readonly #bus: LiveBus
  readonly #events: PresenceEvents
  readonly #rooms = new Map<string, Map<string, Known>>()
  readonly #locals = new Set<LocalParticipant>()
  /** Other processes: when last heard of. */
  readonly #hubs = new Map<string, number>()
  readonly #rosters = new Map<string, Set<string>>()
  readonly #asked = new Map<string, number>()
  #timer: NodeJS.Timeout | null = null

  constructor(me: string, bus: LiveBus, events: PresenceEvents) {
    this.#me = me
    this.#bus = bus
    this.#events = events
  }

  start(): void {
    this.#timer ??= setInterval(() => this.#heartbeat(), HEARTBEAT_MS)
    this.#timer.unref()
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }

  locals(): LocalParticipant[] {
    return [...this.#locals]
  }

  localsOf(fileId: string): LocalParticipant[] {
    const out: LocalParticipant[] = []
    for (const known of this.#rooms.get(fileId)?.values() ?? []) if (known.local) out.push(known.local)
    return out
  }

  hasLocals(fileId: string): boolean {
    for (const known of this.#rooms.get(fileId)?.values() ?? []) if (known.local) return true
    return false
  }

  recordsOf(fileId: string): ParticipantRecord[] {
    return [...(this.#rooms.get(fileId)?.values() ?? [])].map((known) => known.record)
  }

  has(fileId: string, id: string): boolean {
    return this.#rooms.get(fileId)?.has(id) ?? false
  }

  /** `resume` when it is free or held by the same account or link; else null (a fresh id). */
  idFor(fileId: string, who: string, resume: string | undefined): string | null {
    if (resume === undefined) return null
    const held = this.#rooms.get(fileId)?.get(resume)
    if (held) return held.record.who === who ? resume : null
    for (const local of this.#locals) if (local.record.id === resume) return null
    return resume
  }

  addLocal(local: LocalParticipant): void {
    const old = this.#rooms.get(local.fileId)?.get(local.record.id)?.local
    if (old) {
      this.#locals.delete(old)
      this.#events.replacedElsewhere(old)
    }
    this.#locals.add(local)
    this.#put(local.fileId, { record: local.record, hub: this.#me, local })
    this.#bus.publish({ o: 'j', h: this.#me, f: local.fileId, p: local.record })
  }

  removeLocal(local: LocalParticipant, reason: string): void {
    this.#locals.delete(local)
    const known = this.#rooms.get(local.fileId)?.get(local.record.id)
    if (known?.local !== local) return
    this.#remove(local.fileId, local.record.id, reason)
    this.#bus.publish({ o: 'l', h: this.#me, f: local.fileId, id: local.record.id, r: reason })
  }

  camera(local: LocalParticipant, camera: Camera): void {
    local.record.camera = camera
    this.#sendCamera(local.fileId, local.record.id, camera, local)
    this.#bus.publish({ o: 'c', h: this.#me, f: local.fileId, id: local.record.id, c: camera })
  }

  selection(local: LocalParticipant, ids: string[]): void {
    local.record.selection = ids
    this.#sendSelection(local.fileId, local.record.id, ids, local)
    this.#bus.publish({ o: 's', h: this.#me, f: local.fileId, id: local.record.id, s: ids })
  }

  follow(local: LocalParticipant, target: string | null): void {
    local.record.following = target
    this.#sendFollow(local.fileId, local.record.id, target)
    this.#bus.publish({ o: 'w', h: this.#me, f: local.fileId, id: local.record.id, t: target })
  }

  up(): void {
    // Whatever was said while the relay was down may be lost: everyone's roster again, ours too.
    this.#bus.publish({ o: 'q', h: this.#me, to: null })
    this.#sendRoster()
  }

  receive(message: RelayMessage): void {
    if (message.o === 'x') {
      this.#events.changed(message.f, message.k, message.i)
      return
    }
    if (message.h === this.#me) return
    this.#hubs.set(message.h, Date.now())
    this.#fromHub(message)
  }

  #fromHub(message: Exclude<RelayMessage, { o: 'x' }>): void {
    switch (message.o) {
      case 'a':
        if (this.#countOf(message.h) !== message.n && !this.#rosters.has(message.h)) this.#ask(message.h)
        return
      case 'q':
        if (message.to === null || message.to === this.#me) this.#sendRoster()
        return
      case 'sb':
        this.#rosters.set(message.h, new Set())
        return
      case 'se':
        this.#endRoster(message.h)
        return
      case 'j':
        this.#remoteJoin(message.h, message.f, message.p)
        return
      case 'l':
        if (this.#rooms.get(message.f)?.get(message.id)?.hub === message.h) {
          this.#remove(message.f, message.id, message.r)
        }
        return
      default:
        this.#remoteState(message)
    }
  }

  #remoteState(message: Extract<RelayMessage, { o: 'c' | 's' | 'w' }>): void {
    const known = this.#rooms.get(message.f)?.get(message.id)
    if (!known || known.hub !== message.h) return
    if (message.o === 'c') {
      known.record.camera = message.c
      this.#sendCamera(message.f, message.id, message.c)
    } else if (message.o === 's') {
      known.record.selection = message.s
      this.#sendSelection(message.f, message.id, message.s)
    } else {
      known.record.following = message.t
      this.#sendFollow(message.f, message.id, message.t)
    }
  }

  #remoteJoin(hub: string, fileId: string, record: ParticipantRecord): void {
    this.#rosters.get(hub)?.add(`${fileId}/${record.id}`)
    const old = this.#rooms.get(fileId)?.get(record.id)
    if (old?.local) {
      // The client resumed on another process while this one still held its old connection.
      this.#locals.delete(old.local)
      this.#events.replacedElsewhere(old.local)
    }
    // A roster (or a resume on the same process) repeats someone already known: nothing to tell.
    const known = old !== undefined && old.hub === hub && old.local === null
    this.#put(fileId, { record, hub, local: null }, known)
  }

  /** Adds or replaces the participant and tells this process's others on the file (unless `quiet`). */
  #put(fileId: string, known: Known, quiet = false): void {
    let room = this.#rooms.get(fileId)
    if (!room) {
      room = new Map()
      this.#rooms.set(fileId, room)
    }
    room.set(known.record.id, known)
    if (quiet) return
    const { record } = known
    this.#events.toLocals(
      fileId,
      (forGuest) => ({ text: JSON.stringify({ type: 'joined', participant: viewOf(record, forGuest) }) }),
      known.local ?? undefined,
    )
  }

  #remove(fileId: string, id: string, reason: string): void {
    const room = this.#rooms.get(fileId)
    if (!room?.delete(id)) return
    if (room.size === 0) this.#rooms.delete(fileId)
    const left = JSON.stringify({ type: 'left', participantId: id, reason })
    this.#events.toLocals(fileId, () => ({ text: left }))
    // Whoever followed them follows no one now (every process clears its copy the same way).
    for (const known of room.values()) {
      if (known.record.following !== id) continue
      known.record.following = null
      this.#sendFollow(fileId, known.record.id, null)
    }
  }

  #sendCamera(fileId: string, id: string, camera: Camera, except?: LocalParticipant): void {
    const text = JSON.stringify({ type: 'camera', participantId: id, ...camera })
    this.#events.toLocals(fileId, () => ({ text, lossy: true }), except)
  }

  #sendSelection(fileId: string, id: string, ids: string[], except?: LocalParticipant): void {
    const text = JSON.stringify({ type: 'selection', participantId: id, ids })
    this.#events.toLocals(fileId, () => ({ text }), except)
  }

  #sendFollow(fileId: string, id: string, following: string | null): void {
    const text = JSON.stringify({ type: 'follow', participantId: id, following })
    this.#events.toLocals(fileId, () => ({ text }))
  }

  #countOf(hub: string): number {
    let n = 0
    for (const room of this.#rooms.values()) for (const known of room.values()) if (known.hub === hub) n += 1
    return n
  }

  #ask(hub: string): void {
    const now = Date.now()
    if (now - (this.#asked.get(hub) ?? 0) < ASK_AGAIN_MS) return
    this.#asked.set(hub, now)
    this.#bus.publish({ o: 'q', h: this.#me, to: hub })
  }

  #sendRoster(): void {
    this.#bus.publish({ o: 'sb', h: this.#me })
    for (const local of this.#locals)
      this.#bus.publish({ o: 'j', h: this.#me, f: local.fileId, p: local.record })
    this.#bus.publish({ o: 'se', h: this.#me })
  }

  /** The roster of `hub` is complete: its participants not in it are gone. */
  #endRoster(hub: string): void {
    const listed = this.#rosters.get(hub)
    this.#rosters.delete(hub)
    if (!listed) return
    this.#dropHub(hub, (fileId, id) => !listed.has(`${fileId}/${id}`), 'expired')
  }

  #dropHub(hub: string, gone: (fileId: string, id: string) => boolean, reason: string): void {
    for (const [fileId, room] of [...this.#rooms]) {
      for (const [id, known] of [...room])
        if (known.hub === hub && gone(fileId, id)) this.#remove(fileId, id, reason)
    }
  }

  #heartbeat(): void {
    this.#bus.publish({ o: 'a', h: this.#me, n: this.#locals.size })
    const now = Date.now()
    for (const [hub, seen] of [...this.#hubs]) {
      if (now - seen < EXPIRY_MS) continue
      this.#hubs.delete(hub)
      this.#rosters.delete(hub)
      this.#asked.delete(hub)
      this.#dropHub(hub, () => true, 'expired')
    }
  }
}
