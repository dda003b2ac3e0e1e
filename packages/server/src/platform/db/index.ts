// Storage kernel: one Kysely instance over better-sqlite3 (embedded default) or pg (scale-out).
// Dialect differences live here and nowhere else.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  type SqliteDatabase as KyselySqliteDatabase,
  type Migration,
  type MigrationProvider,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  sql,
  type Transaction,
} from 'kysely'
import pg from 'pg'
import { startCheckpointer } from './checkpointer.ts'
import { migrations } from './migrations.ts'
import { type DirectRead, registerDirectRead } from './precompiled.ts'
import type { Database } from './schema.ts'

export { precompiled } from './precompiled.ts'
export type { Database } from './schema.ts'
export type Dialect = 'sqlite' | 'postgres'
export type Tx = Transaction<Database>
export type Executor = Kysely<Database> | Tx

export interface Db {
  kysely: Kysely<Database>
  dialect: Dialect
  /**
   * SQLite only: calls `callback` once the write transaction open on the connection ends, with
   * whether it committed. Only a caller running inside that transaction may use it (SQLite has one
   * connection, and transactions on it run one after another, so that transaction is the caller's).
   */
  whenTransactionEnds?: (callback: (committed: boolean) => void) => void
  /**
   * SQLite only: runs one statement synchronously on the connection, without Kysely's connection
   * hand-over (several promises per query). Only for a caller running inside the open transaction
   * (see whenTransactionEnds), which holds the connection; the hot paths of the delivery engine.
   */
  runInTransaction?: (sql: string, parameters: readonly unknown[]) => DirectResult
  /** Where the data lives, for logs and `/readyz` (never contains a password). */
  description: string
  close(): Promise<void>
}

export interface DirectResult {
  rows: Record<string, unknown>[]
  /** Rows changed, for statements that return none. */
  affected: number
}

export interface DbOptions {
  /** postgres:// URL, or undefined for SQLite under `dataDir`. */
  databaseUrl: string | undefined
  dataDir: string
  /** PostgreSQL schema to use (created if missing); tests use one per run. */
  pgSchema?: string
  pgPoolSize?: number
}

/** Callbacks waiting for the end of the open SQLite transaction (Db.whenTransactionEnds). */
class TransactionEndCallbacks {
  #waiting: Array<(committed: boolean) => void> = []

  constructor(readonly database: SqliteDatabase.Database) {}

  add(callback: (committed: boolean) => void): void {
    if (!this.database.inTransaction) throw new Error('whenTransactionEnds needs an open transaction')
    this.#waiting.push(callback)
  }

  run(committed: boolean): void {
    const waiting = this.#waiting
    if (waiting.length === 0) return
    this.#waiting = []
    for (const callback of waiting) callback(committed)
  }
}

// SQLite: every write transaction starts IMMEDIATE so that a second process (the CLI beside a
// running server) waits on busy_timeout instead of failing with SQLITE_BUSY at upgrade time.
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    config: ConstructorParameters<typeof SqliteDriver>[0],
    readonly ends: TransactionEndCallbacks,
  ) {
    super(config)
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }

  // The callbacks run before the connection is handed to the next transaction.
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection)
    } catch (error) {
      if (!this.ends.database.inTransaction) this.ends.run(false)
      throw error
    }
    this.ends.run(true)
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection)
    } finally {
      this.ends.run(false)
    }
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0]
  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    readonly ends: TransactionEndCallbacks,
  ) {
    super(config)
    this.#config = config
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config, this.ends)
  }
}

// Kysely prepares every query anew, and on the hot path (session lookup, listings) SQLite's
// statement preparation costs more than running the statement. Prepared statements are cached by
// SQL text (LRU); only compiled SQL is cached, never data. A statement still busy in an iteration
// cannot be re-entered, so that case gets a fresh one.
const STATEMENT_CACHE_SIZE = 256

function withStatementCache(database: SqliteDatabase.Database): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>()
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      const cached = cache.get(sqlText)
      if (cached) {
        if (cached.busy) return database.prepare(sqlText)
        cache.delete(sqlText)
        cache.set(sqlText, cached)
        return cached
      }
      const statement = database.prepare(sqlText)
      cache.set(sqlText, statement)
      if (cache.size > STATEMENT_CACHE_SIZE) {
        const oldest = cache.keys().next().value
        if (oldest !== undefined) cache.delete(oldest)
      }
      return statement
    },
  }
}

interface PreparedRead {
  statement: SqliteDatabase.Statement
  columns: string[]
}

interface PendingRead {
  sql: string
  read: PreparedRead
  parameters: readonly unknown[]
  resolve: (rows: unknown[]) => void
  reject: (error: unknown) => void
}

function rowsOf({ statement, columns }: PreparedRead, parameters: readonly unknown[]) {
  return (statement.all(parameters) as unknown[][]).map((values) => {
    const row: Record<string, unknown> = {}
    for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[i]
    return row
  })
}

/**
 * The hot-path reads of `precompiled` on SQLite, without Kysely's connection hand-over (several
 * promises per query). On a busy server the costly part of such a read is not the query but the
 * read transaction around it: two fcntl() calls on the WAL index, which cost more than the query
 * itself. So reads wait for the end of the event-loop turn and run together, in one read
 * transaction: one lock for the whole turn's requests. Every read still reads the database
 * afresh, after its request arrived; nothing is cached. If a write transaction is open on the
 * connection at that moment, the reads go through Kysely and queue behind it, so they never see
 * uncommitted writes.
 *
 * The statements answer value arrays, made into rows here: better-sqlite3 builds row objects
 * through V8's C++ API, column by column, at a cost comparable to the query. One statement per
 * precompiled query (a fixed set), kept for the life of the connection.
 */
function directReader(database: SqliteDatabase.Database, kysely: Kysely<Database>): DirectRead {
  const prepared = new Map<string, PreparedRead | null>()
  let pending: PendingRead[] = []

  const prepare = (sqlText: string): PreparedRead | null => {
    let read = prepared.get(sqlText)
    if (read === undefined) {
      const statement = database.prepare(sqlText)
      read = statement.reader
        ? { statement: statement.raw(true), columns: statement.columns().map((column) => column.name) }
        : null
      prepared.set(sqlText, read)
    }
    return read
  }
  // better-sqlite3's transaction(): BEGIN (deferred: a read lock at the first read), COMMIT.
  const runTogether = database.transaction((reads: PendingRead[]) => {
    for (const read of reads) {
      try {
        read.resolve(rowsOf(read.read, read.parameters))
      } catch (error) {
        read.reject(error)
      }
    }
  })
  const flush = () => {
    const reads = pending
    pending = []
    if (database.inTransaction) {
      for (const read of reads) {
        void kysely
          .executeQuery(CompiledQuery.raw(read.sql, [...read.parameters]))
          .then((result) => read.resolve(result.rows), read.reject)
      }
      return
    }
    try {
      runTogether(reads)
    } catch (error) {
      // BEGIN or COMMIT failed (e.g. the database was closed): reads not answered yet fail.
      for (const read of reads) read.reject(error)
    }
  }

  return (sql, parameters) => {
    const read = prepare(sql)
    if (!read) return undefined
    if (pending.length === 0) setImmediate(flush)
    return new Promise((resolve, reject) => {
      pending.push({ sql, read, parameters, resolve, reject })
    })
  }
}

/** Db.runInTransaction: statements prepared once per text (a fixed set), rows built from arrays. */
function transactionRunner(database: SqliteDatabase.Database) {
  // A statement that returns rows is kept as a PreparedRead, any other as itself.
  const prepared = new Map<string, { read: PreparedRead } | { write: SqliteDatabase.Statement }>()
  return (sqlText: string, parameters: readonly unknown[]): DirectResult => {
    if (!database.inTransaction) throw new Error('runInTransaction needs an open transaction')
    let entry = prepared.get(sqlText)
    if (entry === undefined) {
      const statement = database.prepare(sqlText)
      entry = statement.reader
        ? {
            read: {
              statement: statement.raw(true),
              columns: statement.columns().map((column) => column.name),
            },
          }
        : { write: statement }
      prepared.set(sqlText, entry)
    }
    if ('read' in entry) return { rows: rowsOf(entry.read, parameters), affected: 0 }
    return { rows: [], affected: entry.write.run(parameters).changes }
  }
}

// pg returns int8 as strings; every bigint here is a millisecond timestamp or a byte count, which
// fit in a double.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format)
  },
}

export async function openDatabase(options: DbOptions): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options)
  mkdirSync(options.dataDir, { recursive: true })
  const file = path.join(options.dataDir, 'tessera.db')
  const database = new SqliteDatabase(file)
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = NORMAL')
  database.pragma('busy_timeout = 5000')
  database.pragma('foreign_keys = ON')
  const checkpointer = startCheckpointer(database, file)
  const statements = withStatementCache(database)
  const ends = new TransactionEndCallbacks(database)
  const kysely = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: statements }, ends),
  })
  registerDirectRead(kysely, directReader(database, kysely))
  return {
    kysely,
    dialect: 'sqlite',
    whenTransactionEnds: (callback) => ends.add(callback),
    runInTransaction: transactionRunner(database),
    description: `sqlite:${file}`,
    async close() {
      await checkpointer.stop()
      await kysely.destroy()
    },
  }
}

async function openPostgres(url: string, options: DbOptions): Promise<Db> {
  const schema = options.pgSchema
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`)
  if (schema) {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query(`create schema if not exists ${schema}`)
    } finally {
      await admin.end()
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.pgPoolSize ?? 10,
    types: pgTypes,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  })
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  const safe = new URL(url)
  safe.password = ''
  return {
    kysely,
    dialect: 'postgres',
    description: `${safe.toString()}${schema ? ` (schema ${schema})` : ''}`,
    close: () => kysely.destroy(),
  }
}

class StaticMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations
  }
}

/**
 * Brings the schema up to date (or up to migration `upTo`, for tests of a migration); safe to run
 * from several processes at once.
 */
export async function migrate(db: Db, upTo?: string): Promise<string[]> {
  // Kysely looks for its bookkeeping tables across all schemas unless told which one; name ours
  // so that several Tessera schemas in one database (tests, tenants) never see each other's.
  let migrationTableSchema: string | undefined
  if (db.dialect === 'postgres') {
    const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)
    migrationTableSchema = result.rows[0]?.schema
  }
  const migrator = new Migrator({ db: db.kysely, provider: new StaticMigrations(), migrationTableSchema })
  const { error, results } = await (upTo === undefined
    ? migrator.migrateToLatest()
    : migrator.migrateTo(upTo))
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/**
 * Serializes writers of one named resource (e.g. the license pool) across every process sharing
 * the database. PostgreSQL: a transaction-scoped advisory lock. SQLite: the IMMEDIATE transaction
 * already holds the single write lock.
 */
export async function lockResource(db: Db, tx: Tx, name: string): Promise<void> {
  if (db.dialect === 'postgres') {
    // Names may carry request input (an ID from the URL); PostgreSQL text cannot hold NUL.
    await sql`select pg_advisory_xact_lock(hashtext(${name.replaceAll('\0', '\\0')}))`.execute(tx)
  }
}

/**
 * PostgreSQL: this transaction's commit returns without waiting for its WAL to reach disk
 * (`synchronous_commit = off` for it alone). Only for writes whose loss in a database-server crash
 * merely repeats work that is safe to repeat — a delivery attempt recorded or claimed is at worst
 * sent again, which at-least-once delivery allows — never for anything a caller was told is saved.
 * A crash of our own process loses nothing: the commit is in the server. SQLite commits this way
 * already (WAL, synchronous = NORMAL).
 */
export async function commitWithoutFlushWait(db: Db, tx: Tx): Promise<void> {
  if (db.dialect === 'postgres') await sql`set local synchronous_commit = off`.execute(tx)
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely)
}
