// Shipped: never edit (see index.ts).
import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// PostgreSQL: drops tessera_worker_round (0019), a second implementation of a delivery worker's
// round in PL/pgSQL beside the engine's own (delivery/recording.ts, claim.ts, record.ts). Measured
// with `npm run bench:delivery`, the one-statement round was no faster than the transaction the
// engine runs on both databases, and two implementations of the claim had to be kept in step.
export const migration: Migration = {
  async up(db: AnyDb) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    await sql`drop function if exists tessera_worker_round(json, text[], text[], text, bigint, bigint, int, int)`.execute(
      db,
    )
  },
}
