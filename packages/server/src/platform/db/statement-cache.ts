// Kysely prepares every query anew, and on the hot path (session lookup, listings) SQLite's
// statement preparation costs more than running the statement. Prepared statements are cached by
// SQL text (LRU); only compiled SQL is cached, never data. A statement still busy in an iteration
// cannot be re-entered, so that case gets a fresh one.
import type SqliteDatabase from 'better-sqlite3'
import type { SqliteDatabase as KyselySqliteDatabase } from 'kysely'

const STATEMENT_CACHE_SIZE = 256

export function withStatementCache(database: SqliteDatabase.Database): KyselySqliteDatabase {
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
