// Writing a model's property rows, one implementation per database (chosen by forDialect): a big
// building has over a million, and a statement per row, or Kysely building a VALUES list of
// thousands of rows, costs far more than the database's own work. Each statement carries a batch
// of rows as a few parameters instead: columns as arrays on PostgreSQL (unnest), one JSON array on
// SQLite (json_each).
import { setImmediate as nextTurn } from 'node:timers/promises'
import { sql } from 'kysely'
import { type Db, type Executor, forDialect, type PerDialect } from '../../platform/db/index.ts'
import type { PropertyRow, PropertySet } from './property-rows.ts'

/** Rows per statement. */
const ROWS_PER_STATEMENT = 2_000

type InsertRows = (db: Executor, set: PropertySet, rows: readonly PropertyRow[]) => Promise<void>

const postgresInsert: InsertRows = async (db, set, rows) => {
  await sql`insert into scene_properties (file_id, generation, node_id, key_id, value, text, num)
    select ${set.fileId}, ${set.generation}::integer, * from unnest(
      ${rows.map((row) => row.node_id)}::text[], ${rows.map((row) => row.key_id)}::integer[],
      ${rows.map((row) => row.value)}::text[], ${rows.map((row) => row.text)}::text[],
      ${rows.map((row) => row.num)}::double precision[])`.execute(db)
}

const sqliteInsert: InsertRows = async (db, set, rows) => {
  const list = JSON.stringify(rows.map((row) => [row.node_id, row.key_id, row.value, row.text, row.num]))
  await sql`insert into scene_properties (file_id, generation, node_id, key_id, value, text, num)
    select ${set.fileId}, ${set.generation}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
    from json_each(${list})`.execute(db)
}

const INSERTS: PerDialect<InsertRows> = { sqlite: sqliteInsert, postgres: postgresInsert }

/**
 * PostgreSQL plans from table statistics, which autovacuum refreshes up to a minute after a bulk
 * insert: until then a table that was nearly empty looks empty, and a page of properties scans a
 * whole index instead of seeking its nodes (measured: 24 ms instead of 3 for 200 nodes of a
 * 130,000-row table). ANALYZE samples a bounded number of rows, so it costs the same at any size.
 * SQLite's planner does without statistics here.
 */
const AFTER_BULK: PerDialect<(db: Executor) => Promise<void>> = {
  sqlite: async () => {},
  postgres: async (db) => {
    await sql`analyze scene_properties, scene_property_keys`.execute(db)
  },
}

/** Rows a conversion must have written for AFTER_BULK to be worth its time. */
const BULK_ROWS = 10_000

export async function afterPropertiesWritten(db: Db, rows: number): Promise<void> {
  if (rows >= BULK_ROWS) await forDialect(db, AFTER_BULK)(db.kysely)
}

/**
 * Inserts `rows` of a generation's properties, each batch of ROWS_PER_STATEMENT in a transaction of
 * its own: on SQLite every writer waits while one runs, so none may last long.
 */
export async function insertPropertyRows(
  db: Db,
  set: PropertySet,
  rows: readonly PropertyRow[],
): Promise<void> {
  const insert = forDialect(db, INSERTS)
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await insert(db.kysely, set, rows.slice(i, i + ROWS_PER_STATEMENT))
    // better-sqlite3 runs statements synchronously: without a turn of the event loop between them,
    // no request would be served until every row is written.
    await nextTurn()
  }
}
