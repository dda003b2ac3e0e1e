// The relay between the live hubs of every server process on one database (docs/live.md "Across
// server processes"): each hub publishes what its participants do, and hears the others'. One
// implementation per database (sqlite/, postgres/), picked once per opened database by open-bus.ts.
import type { Logger } from 'pino'
import type { Camera } from './protocol.ts'

/** A participant as hubs tell each other of it (and keep it). */
export interface ParticipantRecord {
  id: string
  name: string
  /** Accounts only; never sent to guests. */
  email?: string
  guest: boolean
  color: string
  /** Who is behind it (an account id, or `link:<id>` for a guest): a resume must match it. */
  who: string
  camera?: Camera
  selection?: string[]
  following?: string | null
}

/**
 * One relay message. `h`: the sending hub; `f`: the file. `o` says what:
 * j joined (`p`), l left (`id`, `r` reason), c camera (`id`, `c`), s selection (`id`, `s`),
 * w follow (`id`, `t`), a the hub is alive (`n`: its participants), q send your roster (`to`: that
 * hub, or every hub), sb/se a roster begins/ends, x something changed (`k` kind, `i` id; from the
 * outbox, no `h`).
 */
export type RelayMessage =
  | { o: 'j'; h: string; f: string; p: ParticipantRecord }
  | { o: 'l'; h: string; f: string; id: string; r: string }
  | { o: 'c'; h: string; f: string; id: string; c: Camera }
  | { o: 's'; h: string; f: string; id: string; s: string[] }
  | { o: 'w'; h: string; f: string; id: string; t: string | null }
  | { o: 'a'; h: string; n: number }
  | { o: 'q'; h: string; to: string | null }
  | { o: 'sb'; h: string }
  | { o: 'se'; h: string }
  | { o: 'x'; f: string; k: ChangeKind; i: string }

/** What a `changed` notice names; `access`: who may read the file may have changed (not sent on). */
export type ChangeKind = 'annotation' | 'configuration' | 'attributes' | 'file' | 'access'

export interface BusListener {
  receive(message: RelayMessage): void
  /** The relay works (again): messages may have been missed before, ask for rosters. */
  up(): void
}

export interface LiveBus {
  /** Sends to every hub on the database, the publisher's included; in order per publisher. */
  publish(message: RelayMessage): void
  subscribe(listener: BusListener): () => void
  /** Where the relay logs its troubles (the bus is the database's, made before any hub). */
  useLog(log: Logger): void
}

/** The listeners of one process, each handed every message. */
export class Listeners {
  readonly #set = new Set<BusListener>()

  add(listener: BusListener): () => void {
    this.#set.add(listener)
    return () => this.#set.delete(listener)
  }

  deliver(message: RelayMessage): void {
    for (const listener of this.#set) listener.receive(message)
  }

  up(): void {
    for (const listener of this.#set) listener.up()
  }

  get size(): number {
    return this.#set.size
  }
}
