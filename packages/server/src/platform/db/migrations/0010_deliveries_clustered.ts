// Shipped: never edit (see index.ts).
import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // Every emit writes a delivery row and every attempt rewrites it. On SQLite a rowid table
    // keyed by a text id writes two B-tree pages per insert (the rows, and the index on id),
    // and UNIQUE(uuid) a third one at a random place (uuids are random): rebuilt WITHOUT ROWID,
    // the rows live in the id B-tree itself, and the uuid constraint goes. Nothing looks a delivery
    // up by uuid, and a v4 uuid made per delivery does not collide (122 random bits). WAL frames
    // per delivered event, emit and record together: ~9.2 -> ~7.2.
    if (await isPostgres(db)) {
      await sql`alter table deliveries drop constraint if exists deliveries_uuid_key`.execute(db)
      return
    }
    const [{ sql: ddl } = { sql: '' }] = (
      await sql<{ sql: string }>`select sql from sqlite_master where name = 'deliveries'`.execute(db)
    ).rows
    if (/without rowid/i.test(ddl)) return // rebuilt already (interrupted before it was recorded)
    const columns = `id, uuid, event_id, webhook_id, owner_email, status, attempts, next_attempt_at,
        lease_expires_at, leased_by, last_status_code, last_error_code, created_at, updated_at,
        completed_at, is_test`
    // The SQL keeps its shipped indentation, spaces included: SQLite stores a table's DDL as written.
    // SQLite's way to change a table (sqlite.org/lang_altertable.html): new table, copy, drop,
    // rename, with foreign keys off so that dropping the old table cascades to nothing, and one
    // transaction so that a crash leaves either table, never half of one.
    await sql`pragma foreign_keys = off`.execute(db)
    try {
      await sql`begin immediate`.execute(db)
      try {
        await sql`create table deliveries_rebuilt (
            id text primary key,
            uuid text not null,
            event_id text not null references events (id),
            webhook_id text not null references webhooks (id) on delete cascade,
            owner_email text not null,
            status text not null,
            attempts integer not null default 0,
            next_attempt_at bigint not null,
            lease_expires_at bigint,
            leased_by text,
            last_status_code integer,
            last_error_code text,
            created_at bigint not null,
            updated_at bigint not null,
            completed_at bigint,
            is_test integer not null default 0
          ) without rowid`.execute(db)
        await sql
          .raw(`insert into deliveries_rebuilt (${columns}) select ${columns} from deliveries`)
          .execute(db)
        await sql`drop table deliveries`.execute(db)
        await sql`alter table deliveries_rebuilt rename to deliveries`.execute(db)
        await db.schema
          .createIndex('deliveries_webhook_id_idx')
          .on('deliveries')
          .columns(['webhook_id', 'id'])
          .execute()
        await db.schema
          .createIndex('deliveries_claim_idx')
          .on('deliveries')
          .columns(['status', 'webhook_id', 'next_attempt_at'])
          .execute()
        const broken = await sql`pragma foreign_key_check`.execute(db)
        if (broken.rows.length > 0) throw new Error('0010: rebuilt deliveries break a foreign key')
        await sql`commit`.execute(db)
      } catch (err) {
        await sql`rollback`.execute(db)
        throw err
      }
    } finally {
      await sql`pragma foreign_keys = on`.execute(db)
    }
  },
}

/**
 * Asks with a PostgreSQL-only function. The probe may fail only on SQLite, whose migrations run
 * outside a transaction (Kysely runs PostgreSQL's in one, which a failed statement would abort).
 */
async function isPostgres(db: AnyDb): Promise<boolean> {
  try {
    await sql`select current_schema()`.execute(db)
    return true
  } catch {
    return false
  }
}
