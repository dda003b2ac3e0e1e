// Making the process's hub for a database: the one place that picks the stream's implementation for
// that database (sqlite/ or postgres/), as Kysely picks a dialect's driver and compiler.
import { type Db, forDialect, type PerDialect } from '../platform/db/index.ts'
import type { StreamDialect } from './dialect.ts'
import { StreamHub, type StreamHubOptions } from './hub.ts'
import { postgresStream } from './postgres/index.ts'
import { sqliteStream } from './sqlite/index.ts'

const DIALECTS: PerDialect<(db: Db) => StreamDialect> = {
  sqlite: sqliteStream,
  postgres: postgresStream,
}

/** The stream's reads and wake-up source for `db`'s database. */
export const streamDialectOf = (db: Db): StreamDialect => forDialect(db, DIALECTS)(db)

/** The live stream hub of this process, reading from `options.db`. */
export function createStreamHub(options: Omit<StreamHubOptions, keyof StreamDialect>): StreamHub {
  return new StreamHub({ ...options, ...streamDialectOf(options.db) })
}
