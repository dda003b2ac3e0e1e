import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// PostgreSQL: every insert, update or delete of a files or file_shares row NOTIFYs on the row-change
// channel of migration 0016, in the writing transaction (delivered at commit), so that each process's
// cache of listings forgets what the change touches (modules/files/listing/postgres/cache.ts). The
// reported key is the account whose listings change, not the row's id: a file's owner (whose
// directories hold it) and a share's account (whose shared listing holds it). PostgreSQL folds equal
// payloads of one transaction into one notification, so a bulk change of one owner's files is one.
// SQLite has no such cache (its listing reads answer in this process), so no trigger there.
export const migration: Migration = {
  async up(db: AnyDb) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return
    for (const [table, key] of [
      ['files', 'owner_id'],
      ['file_shares', 'account_id'],
    ] as const) {
      // NEW is null in a delete's trigger, OLD in an insert's; an update reports the old key too
      // (owners and share accounts never change today, but a trigger must not rely on it).
      await sql`
        create or replace function ${sql.raw(`tessera_notify_${table}_row`)}() returns trigger language plpgsql as $$
        begin
          if tg_op <> 'INSERT' then
            perform pg_notify('tessera_auth_rows', tg_table_schema || ' ' || tg_table_name || ' ' || old.${sql.raw(key)});
          end if;
          if tg_op <> 'DELETE' then
            perform pg_notify('tessera_auth_rows', tg_table_schema || ' ' || tg_table_name || ' ' || new.${sql.raw(key)});
          end if;
          return null;
        end $$`.execute(db)
      await sql`
        create trigger ${sql.raw(`${table}_notify_change`)} after insert or update or delete on ${sql.table(table)}
        for each row execute function ${sql.raw(`tessera_notify_${table}_row`)}()`.execute(db)
    }
  },
}
