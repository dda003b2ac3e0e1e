// What the kernel does differently per dialect, apart from the SQLite driver (sqlite-driver.ts) and the
// PostgreSQL-only statements of the transaction helpers (transactions.ts).
import { sql } from 'kysely'
import pg from 'pg'
import type { Db } from './types.ts'

export type Dialect = 'sqlite' | 'postgres'

const DIALECTS: readonly string[] = ['sqlite', 'postgres'] satisfies Dialect[]

/** Whether `value` names a dialect (a backup manifest's field, read from a file). */
export function isDialect(value: unknown): value is Dialect {
  return typeof value === 'string' && DIALECTS.includes(value)
}

/** The database a configuration opens (openDatabase's rule): PostgreSQL when it names a URL. */
export function configuredDialect(databaseUrl: string | undefined): Dialect {
  return databaseUrl ? 'postgres' : 'sqlite'
}

/** The configuration's dialect when it is not `dialect` (a backup's, which restores into its own only). */
export function mismatchedDialect(dialect: Dialect, databaseUrl: string | undefined): Dialect | null {
  const configured = configuredDialect(databaseUrl)
  return configured === dialect ? null : configured
}

// pg returns int8 as strings; every bigint here is a millisecond timestamp or a byte count, which
// fit in a double.
export const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format)
  },
}

/** The PostgreSQL schema to use, checked: it goes into SQL and connection options unquoted. */
export function checkedPgSchema(schema: string | undefined): string | undefined {
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`)
  return schema
}

/** A PostgreSQL URL as shown in logs and `/readyz`: without its password. */
export function pgDescription(url: string, schema: string | undefined): string {
  const safe = new URL(url)
  safe.password = ''
  return `${safe.toString()}${schema ? ` (schema ${schema})` : ''}`
}

/**
 * Where Kysely keeps its migration bookkeeping. On PostgreSQL it looks across all schemas unless
 * told which one; naming ours keeps several Tessera schemas in one database (tests, tenants) from
 * seeing each other's. SQLite has no schemas.
 */
export async function migrationTableSchema(db: Db): Promise<string | undefined> {
  if (db.dialect !== 'postgres') return undefined
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db.kysely)
  return result.rows[0]?.schema
}

/** One implementation per database, keyed by its dialect. */
export type PerDialect<T> = Record<Dialect, T>

/**
 * The implementation for `db`'s database out of a layer's per-dialect ones (its sqlite/ and
 * postgres/ folders): the one place they are chosen, as Kysely picks a dialect's driver and compiler
 * when the database opens. Callers choose once per opened database and keep what they got.
 */
export function forDialect<T>(db: Pick<Db, 'dialect'>, implementations: PerDialect<T>): T {
  return implementations[db.dialect]
}

/**
 * `forDialect` kept per opened database: the returned function opens `db`'s implementation the first
 * time it is asked for and answers the same one after (a store that prepares statements or keeps
 * state per database: the outbox's, the delivery engine's).
 */
export function chosenPerDatabase<T>(openers: PerDialect<(db: Db) => T>): (db: Db) => T {
  const opened = new WeakMap<Db, T>()
  return (db) => {
    let implementation = opened.get(db)
    if (implementation === undefined) {
      implementation = forDialect(db, openers)(db)
      opened.set(db, implementation)
    }
    return implementation
  }
}
