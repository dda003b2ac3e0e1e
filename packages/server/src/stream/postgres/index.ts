// The live stream on PostgreSQL: the log's reads (store.ts), and waking by LISTEN: the emitting
// statement sends NOTIFY on the stream's channel at commit (events/stream-log.ts), which reaches every
// process's hub through the database's LISTEN connection; a slow poll covers a lost connection.
// Chosen by ../open.ts.
import { streamChannel } from '../../events/index.ts'
import type { Db } from '../../platform/db/index.ts'
import { wakeOnNotify } from '../../platform/jobs.ts'
import type { StreamDialect, StreamWakeSource } from '../dialect.ts'
import { PostgresStreamStore } from './store.ts'

/** A safety poll besides LISTEN (a lost notification only delays). */
const PG_POLL_MS = 2000

function notifications(db: Db): StreamWakeSource {
  return {
    pollMs: (configured) => Math.max(PG_POLL_MS, configured),
    listen: (wake, log) => wakeOnNotify(db, streamChannel.name, wake, log),
  }
}

export function postgresStream(db: Db): StreamDialect {
  return { store: new PostgresStreamStore(db), wakeSource: notifications(db) }
}
