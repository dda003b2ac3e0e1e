// SQLite with `serve --processes N`: the live relay between the API processes goes through the
// cluster's primary over IPC (cli/cluster.ts wires it), as the job wake-ups do.
import type { Db } from '../../../platform/db/index.ts'
import { liveBusOf } from '../open-bus.ts'
import { type LiveIpc, MemoryBus } from './bus.ts'

/** Relays `db`'s live messages through `ipc` too (SQLite; on PostgreSQL NOTIFY does already). */
export function relayLiveOverIpc(db: Db, ipc: LiveIpc): void {
  const bus = liveBusOf(db)
  if (bus instanceof MemoryBus) bus.attach(ipc)
}
