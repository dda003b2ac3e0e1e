// The live stream on SQLite: the log's reads (store.ts), and waking by polling. The emitting process
// wakes its own hub when the transaction commits (events/outbox.ts); other processes sharing the
// database file see the event at their next poll (TESSERA_STREAM_POLL). Chosen by ../open.ts.
import type { Db } from '../../platform/db/index.ts'
import type { StreamDialect, StreamWakeSource } from '../dialect.ts'
import { SqliteStreamStore } from './store.ts'

const POLLING: StreamWakeSource = {
  pollMs: (configured) => configured,
  // SQLite has no notifications between processes: the poll is the other processes' wake-up.
  listen: () => () => {},
}

export function sqliteStream(db: Db): StreamDialect {
  return { store: new SqliteStreamStore(db), wakeSource: POLLING }
}
