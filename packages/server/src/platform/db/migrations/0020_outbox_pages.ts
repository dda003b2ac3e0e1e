// Shipped: never edit (see index.ts).
import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// SQLite only: fewer B-tree pages written by every emit. An emit's COMMIT writes one WAL frame per
// page it changed, and on one producer that commit is most of SQLite's own part of the emit.
// - `events` (a rowid table keyed by a text id) writes its rows and a separate index on id: rebuilt
//   WITHOUT ROWID, the rows live in the id B-tree itself (as deliveries since 0010).
// - `event_stream`'s AUTOINCREMENT updates `sqlite_sequence` on every insert. A plain INTEGER
//   PRIMARY KEY takes max(seq) + 1, which is the same thing here: stream rows are never deleted
//   (events are never deleted), so the largest seq is never given out twice.
// Measured (`npm run bench:emit`, its bare better-sqlite3 replay of the emit): 10.55 -> 8.87 WAL frames
// per emit, SQLite's own part of it 83 -> 73 µs.
export const migration: Migration = {
  async up(db: AnyDb) {
    if (db.getExecutor().adapter instanceof PostgresAdapter) return
    if (await rebuiltAlready(db)) return // interrupted after its commit, before it was recorded
    // SQLite's way to change a table (sqlite.org/lang_altertable.html), as 0010 does: new tables,
    // copy, drop, rename, with foreign keys off (deliveries refer to events) and one transaction.
    await sql`pragma foreign_keys = off`.execute(db)
    try {
      await sql`begin immediate`.execute(db)
      try {
        await rebuildEvents(db)
        await rebuildEventStream(db)
        const broken = await sql`pragma foreign_key_check`.execute(db)
        if (broken.rows.length > 0) throw new Error('0020: rebuilt events break a foreign key')
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

async function rebuiltAlready(db: AnyDb): Promise<boolean> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'events'`.execute(db)
  return /without rowid/i.test(rows[0]?.sql ?? '')
}

async function rebuildEvents(db: AnyDb): Promise<void> {
  const columns = 'id, event, file_id, data, run_timestamp, created_at'
  await sql`create table events_rebuilt (
      id text primary key,
      event text not null,
      file_id text not null,
      data text not null,
      run_timestamp bigint not null,
      created_at bigint not null
    ) without rowid`.execute(db)
  await sql.raw(`insert into events_rebuilt (${columns}) select ${columns} from events`).execute(db)
  await sql`drop table events`.execute(db)
  await sql`alter table events_rebuilt rename to events`.execute(db)
}

async function rebuildEventStream(db: AnyDb): Promise<void> {
  const columns = 'seq, tx, event_id, account_id'
  await sql`create table event_stream_rebuilt (
      seq integer primary key,
      tx bigint not null,
      event_id text not null,
      account_id text not null
    )`.execute(db)
  await sql
    .raw(`insert into event_stream_rebuilt (${columns}) select ${columns} from event_stream`)
    .execute(db)
  // Dropping the table drops its sqlite_sequence row too.
  await sql`drop table event_stream`.execute(db)
  await sql`alter table event_stream_rebuilt rename to event_stream`.execute(db)
  // As 0014 made them: resuming from Last-Event-ID, and catching one account up from a position.
  await sql`create unique index event_stream_event_idx on event_stream (event_id, account_id)`.execute(db)
  await sql`create index event_stream_account_idx on event_stream (account_id, tx, seq)`.execute(db)
}
