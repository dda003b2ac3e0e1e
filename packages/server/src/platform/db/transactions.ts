// Helpers for code running inside a transaction: locks and (SQLite) the hooks of
// the delivery engine's hot paths on the open transaction.
import type SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import { asPreparedRead, type PreparedRead, rowsOf } from './prepared-read.ts'
import type { Db, DirectResult, Tx } from './types.ts'

/** Callbacks waiting for the end of the open SQLite transaction (Db.whenTransactionEnds). */
export class TransactionEndCallbacks {
  #waiting: Array<(committed: boolean) => void> = []

  readonly database: SqliteDatabase.Database

  constructor(database: SqliteDatabase.Database) {
    this.database = database
  }

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

/** Db.runInTransaction: statements prepared once per text (a fixed set), rows built from arrays. */
export function transactionRunner(database: SqliteDatabase.Database) {
  // A statement that returns rows is kept as a PreparedRead, any other as itself.
  const prepared = new Map<string, { read: PreparedRead } | { write: SqliteDatabase.Statement }>()
  return (sqlText: string, parameters: readonly unknown[]): DirectResult => {
    if (!database.inTransaction) throw new Error('runInTransaction needs an open transaction')
    let entry = prepared.get(sqlText)
    if (entry === undefined) {
      const statement = database.prepare(sqlText)
      const read = asPreparedRead(statement)
      entry = read ? { read } : { write: statement }
      prepared.set(sqlText, entry)
    }
    if ('read' in entry) return { rows: rowsOf(entry.read, parameters), affected: 0 }
    return { rows: [], affected: entry.write.run(parameters).changes }
  }
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
