import type SqliteDatabase from 'better-sqlite3'
import { CompiledQuery, type Kysely } from 'kysely'
import type { DirectRead } from './precompiled.ts'
import { asPreparedRead, type PreparedRead, rowsOf } from './prepared-read.ts'
import type { Database } from './schema.ts'

interface PendingRead {
  sql: string
  read: PreparedRead
  parameters: readonly unknown[]
  resolve: (rows: unknown[]) => void
  reject: (error: unknown) => void
}

/**
 * The hot-path reads of `precompiled` on SQLite, without Kysely's connection hand-over (several
 * promises per query). On a busy server the costly part of such a read is not the query but the
 * read transaction around it: two fcntl() calls on the WAL index, which cost more than the query
 * itself. So reads wait for the end of the event-loop turn and run together, in one read
 * transaction: one lock for the whole turn's requests. Every read still reads the database
 * afresh, after its request arrived; nothing is cached. If a write transaction is open on the
 * connection at that moment, the reads go through Kysely and queue behind it, so they never see
 * uncommitted writes (a commit group still open when their turn comes commits first:
 * sqlite-group-commit.ts).
 *
 * The statements answer value arrays (see prepared-read.ts). One statement per precompiled query
 * (a fixed set), kept for the life of the connection.
 */
export function directReader(database: SqliteDatabase.Database, kysely: Kysely<Database>): DirectRead {
  const prepared = new Map<string, PreparedRead | null>()
  let pending: PendingRead[] = []

  const prepare = (sqlText: string): PreparedRead | null => {
    let read = prepared.get(sqlText)
    if (read === undefined) {
      read = asPreparedRead(database.prepare(sqlText))
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
