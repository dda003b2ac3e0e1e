// Shipped: never edit (see index.ts).
import { type Migration, PostgresAdapter, type RawBuilder, sql } from 'kysely'
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

/** Copies `table` into `<table>_rebuilt` (made by `create`), drops it and takes its name. */
async function rebuild(
  db: AnyDb,
  table: string,
  create: RawBuilder<unknown>,
  columns: string,
): Promise<void> {
  await create.execute(db)
  await sql.raw(`insert into ${table}_rebuilt (${columns}) select ${columns} from ${table}`).execute(db)
  await sql.raw(`drop table ${table}`).execute(db)
  await sql.raw(`alter table ${table}_rebuilt rename to ${table}`).execute(db)
}

async function rebuildEvents(db: AnyDb): Promise<void> {
  const create = sql`create table events_rebuilt (
      id text primary key,
      event text not null,
      file_id text not null,
      data text not null,
      run_timestamp bigint not null,
      created_at bigint not null
    ) without rowid`
  await rebuild(db, 'events', create, 'id, event, file_id, data, run_timestamp, created_at')
}

async function rebuildEventStream(db: AnyDb): Promise<void> {
  const create = sql`create table event_stream_rebuilt (
      seq integer primary key,
      tx bigint not null,
      event_id text not null,
      account_id text not null
    )`
  // Dropping the old table drops its sqlite_sequence row too.
  await rebuild(db, 'event_stream', create, 'seq, tx, event_id, account_id')
  // As 0014 made them: resuming from Last-Event-ID, and catching one account up from a position.
  await sql`create unique index event_stream_event_idx on event_stream (event_id, account_id)`.execute(db)
  await sql`create index event_stream_account_idx on event_stream (account_id, tx, seq)`.execute(db)
}
