// Shipped: never edit (see index.ts).
import { type Migration, sql } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // The live event stream's log (events/stream-*.ts): one row per event and account that may
    // read it, written by emitEvent in the emitting transaction (the same reader rule as the
    // delivery fan-out, recorded instead of re-derived). A row's position is (tx, seq):
    // - SQLite has one writer, so `seq` (autoincrement, assigned at insert) is already commit order
    //   and `tx` is always 0.
    // - PostgreSQL transactions commit out of `seq` order; `tx` is the emitting transaction's id
    //   (pg_current_xact_id) and readers only read rows whose transaction is older than every
    //   transaction still running (the snapshot's xmin), so no row can later appear behind a
    //   position a reader has passed (events/stream-store.ts).
    // No foreign keys: events are never deleted, and each key would cost every emit a lookup.
    const postgres = await isPostgres(db)
    const seq = postgres
      ? sql`bigint generated always as identity primary key`
      : sql`integer primary key autoincrement`
    await sql`create table event_stream (
      seq ${seq},
      tx bigint not null,
      event_id text not null,
      account_id text not null
    )`.execute(db)
    // Resuming: Last-Event-ID (an event id) to the reader's position.
    await sql`create unique index event_stream_event_idx on event_stream (event_id, account_id)`.execute(db)
    // Catching up one account from a position.
    await sql`create index event_stream_account_idx on event_stream (account_id, tx, seq)`.execute(db)
    // The hub's scan of new rows (on SQLite the primary key serves: tx is always 0).
    if (postgres) await sql`create index event_stream_tx_idx on event_stream (tx, seq)`.execute(db)
  },
}

async function isPostgres(db: AnyDb): Promise<boolean> {
  try {
    await sql`select current_schema()`.execute(db)
    return true
  } catch {
    return false
  }
}
