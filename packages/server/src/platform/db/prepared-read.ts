// SQLite statements that answer value arrays, made into rows here: better-sqlite3 builds row objects
// through V8's C++ API, column by column, at a cost comparable to the query. Shared by the batched
// reader and Db.runInTransaction.
import type SqliteDatabase from 'better-sqlite3'

export interface PreparedRead {
  statement: SqliteDatabase.Statement
  columns: string[]
}

/** The statement as a PreparedRead, or null when it returns no rows. */
export function asPreparedRead(statement: SqliteDatabase.Statement): PreparedRead | null {
  if (!statement.reader) return null
  return { statement: statement.raw(true), columns: statement.columns().map((column) => column.name) }
}

export function rowsOf({ statement, columns }: PreparedRead, parameters: readonly unknown[]) {
  return (statement.all(parameters) as unknown[][]).map((values) => {
    const row: Record<string, unknown> = {}
    for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[i]
    return row
  })
}
