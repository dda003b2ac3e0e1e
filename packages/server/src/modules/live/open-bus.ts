// The relay for a database: the one place that picks sqlite/ or postgres/ (docs/architecture.md
// "Where the two databases differ"); one per opened database, shared by its hubs and the outbox hook.
import { chosenPerDatabase } from '../../platform/db/index.ts'
import type { LiveBus } from './bus.ts'
import { PgNotifyBus } from './postgres/bus.ts'
import { MemoryBus } from './sqlite/bus.ts'

export const liveBusOf = chosenPerDatabase<LiveBus>({
  sqlite: () => new MemoryBus(),
  postgres: (db) => new PgNotifyBus(db),
})
