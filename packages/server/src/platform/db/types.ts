// The kernel's handle on the database and the executor types every repository takes.
import type { Kysely, Transaction } from 'kysely'
import type { Dialect } from './dialect.ts'
import type { JobStore } from './job-store.ts'
import type { PgNotifications } from './notifications.ts'
import type { WatchRows } from './row-changes.ts'
import type { SyncRowChanges } from './row-sync.ts'
import type { Database } from './schema.ts'

export type Tx = Transaction<Database>
export type Executor = Kysely<Database> | Tx

export interface Db {
  kysely: Kysely<Database>
  dialect: Dialect
  /** What the job queue and the workers' wake-ups do on this database (job-store.ts). */
  jobStore: JobStore
  /**
   * SQLite only: calls `callback` once the caller's write transaction ends, with whether it
   * committed: at the COMMIT of its commit group (sqlite-group-commit.ts), or at once when it rolls
   * back. Only a caller running inside that transaction may use it (SQLite has one connection, and
   * transaction bodies on it run one after another, so the body running is the caller's).
   */
  whenTransactionEnds?: (callback: (committed: boolean) => void) => void
  /**
   * SQLite only: runs one statement synchronously on the connection, without Kysely's connection
   * hand-over (several promises per query). Only for a caller running inside the open transaction
   * (see whenTransactionEnds), which holds the connection; the hot paths of the delivery engine.
   */
  runInTransaction?: (sql: string, parameters: readonly unknown[]) => DirectResult
  /**
   * Reports updates and deletes of sessions and accounts rows, by this and other processes, for
   * caches of them (row-changes.ts). Absent: no feed, so such caches must read rows every time.
   */
  watchRows?: WatchRows
  /**
   * PostgreSQL only: after a commit that changed sessions or accounts rows, resolves once every
   * process's row-change feed has applied it (row-sync.ts); to the feeds that did not in time.
   */
  syncRowChanges?: SyncRowChanges
  /** PostgreSQL only: the process's one LISTEN connection to this database (notifications.ts). */
  notifications?: PgNotifications
  /** Where the data lives, for logs and `/readyz` (never contains a password). */
  description: string
  /**
   * PostgreSQL only: opens every pooled connection and loads the schema's tables in each
   * (pg-pool-warmth.ts). `tessera-server serve` and `tessera-server worker` call it once migrations ran.
   */
  warm?(): Promise<void>
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
