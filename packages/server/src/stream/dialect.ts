// What the hub does differently per database, behind two interfaces with one implementation each
// in sqlite/ and postgres/ (Kysely's dialect pattern): its reads of the log (StreamStore, store.ts)
// and how it learns that another process committed events (StreamWakeSource). open.ts picks them
// once, when the hub is made for a database; nothing else in stream/ asks which database it is.
import type { Logger } from 'pino'
import type { StreamStore } from './store.ts'

/**
 * What wakes the hub besides emitEvent in this process (which wakes it at commit on SQLite; on
 * PostgreSQL the emitting statement's NOTIFY reaches every process, this one included).
 */
export interface StreamWakeSource {
  /** How often the hub looks without being told, given TESSERA_STREAM_POLL. */
  pollMs(configured: number): number
  /** Calls `wake` whenever other processes may have committed events; answers the stop. */
  listen(wake: () => void, log: Logger): () => void
}

export interface StreamDialect {
  store: StreamStore
  wakeSource: StreamWakeSource
}
