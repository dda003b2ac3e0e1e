import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// PostgreSQL: every update or delete of a sessions or accounts row NOTIFYs, in the writing
// transaction (delivered at commit), so that each process's cache of these rows forgets the row at
// once (platform/db/row-changes.ts). A trigger, not calls in the services: no writer can forget it,
// the CLI and future code included. SQLite installs per-connection TEMP triggers instead.
export const migration: Migration = {
  async up(db: AnyDb) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    await sql`
      create or replace function tessera_notify_auth_row() returns trigger language plpgsql as $$
      begin
        perform pg_notify('tessera_auth_rows', tg_table_schema || ' ' || tg_table_name || ' ' || old.id);
        return null;
      end $$`.execute(db)
    for (const table of ['sessions', 'accounts']) {
      await sql`
        create trigger ${sql.raw(`${table}_notify_change`)} after update or delete on ${sql.table(table)}
        for each row execute function tessera_notify_auth_row()`.execute(db)
    }
  },
}
