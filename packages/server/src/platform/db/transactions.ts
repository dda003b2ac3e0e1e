// Helpers for code running inside a transaction: locks and (SQLite) the hooks of
// the delivery engine's hot paths on the open transaction.
import type SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import { asPreparedRead, type PreparedRead, rowsOf } from './prepared-read.ts'
import type { Db, DirectResult, Tx } from './types.ts'

export type EndCallback = (committed: boolean) => void

/**
 * Callbacks of the transaction whose body runs on the SQLite connection (Db.whenTransactionEnds).
 * The driver collects them per transaction (start, take) and runs them at that transaction's
 * outcome, which with group commit may come after later transactions ran (sqlite-group-commit.ts).
 */
export class TransactionEndCallbacks {
  /** The running transaction's callbacks; null while no transaction body runs. */
  #collecting: EndCallback[] | null = null

  readonly database: SqliteDatabase.Database

  constructor(database: SqliteDatabase.Database) {
    this.database = database
  }

  /** Whether a transaction's body runs on the connection now. */
  get running(): boolean {
    return this.#collecting !== null
  }

  add(callback: EndCallback): void {
    if (this.#collecting === null) throw new Error('whenTransactionEnds needs an open transaction')
    this.#collecting.push(callback)
  }

  /** A transaction's body starts: callbacks added from now on are its own. */
  start(): void {
    this.#collecting = []
  }

  /** Its body is over: its callbacks, for its outcome. */
  take(): EndCallback[] {
    const callbacks = this.#collecting ?? []
    this.#collecting = null
    return callbacks
  }
}

/**
 * Calls every callback, even after one threw (other transactions' outcomes must not depend on it);
 * answers the first error thrown, if any.
 */
export function runEndCallbacks(callbacks: readonly EndCallback[], committed: boolean): unknown {
  let thrown: unknown
  for (const callback of callbacks) {
    try {
      callback(committed)
    } catch (error) {
      thrown ??= error
    }
  }
  return thrown
}

/**
 * Db.runInTransaction: statements prepared once per text (a fixed set), rows built from arrays.
 * Only inside a transaction's body: between two members of a commit group the connection's
 * SQLite transaction is open too, but it is nobody's to write in.
 */
export function transactionRunner(ends: TransactionEndCallbacks) {
  const { database } = ends
  // A statement that returns rows is kept as a PreparedRead, any other as itself.
  const prepared = new Map<string, { read: PreparedRead } | { write: SqliteDatabase.Statement }>()
  return (sqlText: string, parameters: readonly unknown[]): DirectResult => {
    if (!ends.running) throw new Error('runInTransaction needs an open transaction')
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
