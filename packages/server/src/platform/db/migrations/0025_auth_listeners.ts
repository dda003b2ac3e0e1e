import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// PostgreSQL: the row-change feeds of every process (platform/db/row-sync.ts), each with the backend
// of the LISTEN connection it hears on. A call that revokes credentials waits until every feed whose
// backend is alive (pg_stat_activity) acknowledged its change: then every process refuses the old
// tokens. Rows of dead processes need no cleanup to be ignored (their backends are gone).
export const migration: Migration = {
  async up(db: AnyDb) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    await sql`
      create table auth_listeners (
        feed_id text primary key,
        pid integer not null,
        backend_start timestamptz not null
      )`.execute(db)
  },
}
