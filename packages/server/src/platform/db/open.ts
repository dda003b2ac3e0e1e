// Opening and closing: SQLite under the data directory (embedded default) or a PostgreSQL pool.
import { closeSync, openSync } from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { Kysely, sql } from 'kysely'
import pg from 'pg'
import { makePrivateDir, makePrivateFiles, PRIVATE_FILE_MODE } from '../file-modes.ts'
import { directReader } from './batched-reader.ts'
import { startCheckpointer } from './checkpointer.ts'
import { checkedPgSchema, pgDescription, pgTypes } from './dialect.ts'
import { pgJobStore, sqliteJobStore } from './job-store.ts'
import { PgNotifications } from './notifications.ts'
import { OwnSchemaPostgresDialect } from './pg-introspector.ts'
import { namedStatementPool } from './pg-named.ts'
import { warmPool } from './pg-pool-warmth.ts'
import { registerDirectRead } from './precompiled.ts'
import { pgRowWatcher, sqliteRowWatcher } from './row-changes.ts'
import { pgRowSync } from './row-sync.ts'
import type { Database } from './schema.ts'
import { GroupCommitSqliteDialect } from './sqlite-driver.ts'
import { BUSY_TIMEOUT_MS } from './sqlite-lock-wait.ts'
import { withStatementCache } from './statement-cache.ts'
import { TransactionEndCallbacks, transactionRunner } from './transactions.ts'
import type { Db, DbOptions } from './types.ts'

export async function openDatabase(options: DbOptions): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options)
  return openSqlite(options.dataDir)
}

function openSqlite(dataDir: string): Db {
  makePrivateDir(dataDir)
  const file = path.join(dataDir, 'tessera.db')
  // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database's mode.
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE))
  const database = new SqliteDatabase(file)
  database.pragma('journal_mode = WAL')
  makePrivateFiles([file, `${file}-wal`, `${file}-shm`])
  database.pragma('synchronous = NORMAL')
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  database.pragma('foreign_keys = ON')
  const checkpointer = startCheckpointer(database, file)
  const statements = withStatementCache(database)
  const ends = new TransactionEndCallbacks(database)
  const kysely = new Kysely<Database>({
    dialect: new GroupCommitSqliteDialect(statements, ends),
  })
  registerDirectRead(kysely, directReader(database, kysely))
  return {
    kysely,
    dialect: 'sqlite',
    jobStore: sqliteJobStore,
    whenTransactionEnds: (callback) => ends.add(callback),
    runInTransaction: transactionRunner(ends),
    watchRows: sqliteRowWatcher(database),
    description: `sqlite:${file}`,
    async close() {
      await checkpointer.stop()
      await kysely.destroy()
    },
  }
}

async function openPostgres(url: string, options: DbOptions): Promise<Db> {
  const schema = checkedPgSchema(options.pgSchema)
  if (schema) {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query(`create schema if not exists ${schema}`)
    } finally {
      await admin.end()
    }
  }
  const poolSize = options.pgPoolSize ?? 10
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Never closed for being idle: a quiet spell would otherwise cost the next burst its warm
    // connections (pg-pool's default closes them after 10 s; see pg-pool-warmth.ts).
    idleTimeoutMillis: 0,
    // Tells operators (and tests) which connections these are in pg_stat_activity.
    application_name: `tessera-pool:${schema ?? 'public'}`,
    types: pgTypes,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  })
  const kysely = new Kysely<Database>({
    dialect: new OwnSchemaPostgresDialect({ pool: namedStatementPool(pool) }),
  })
  const notifications = new PgNotifications(url, schema)
  return {
    kysely,
    dialect: 'postgres',
    jobStore: pgJobStore,
    watchRows: pgRowWatcher(notifications),
    syncRowChanges: pgRowSync(notifications, kysely),
    warm: () => warmPool(pool, poolSize),
    notifications,
    description: pgDescription(url, schema),
    async close() {
      await notifications.close()
      await kysely.destroy()
    },
  }
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely)
}
