// Plain-text SQL for hot paths (the event outbox, the delivery engine) and its dialect helpers.
// Building and compiling a query through Kysely's builder costs more than SQLite takes to run it,
// and the engine runs several statements per delivery; a fixed text is also prepared once (SQLite
// statement cache). Texts use `?` placeholders, numbered `$1…$n` for PostgreSQL. A list travels as
// one parameter (a JSON array on SQLite, an array on PostgreSQL), so a text never depends on how
// many ids it is given. On PostgreSQL these texts run as named prepared statements (pg-named.ts, the
// one registry of statement names): parsed and planned once per connection instead of at every call.
import { CompiledQuery } from 'kysely'
import type { Db, Dialect, Executor } from './index.ts'
import { nameStatement } from './pg-named.ts'

const numbered = new Map<string, string>()

function textFor(dialect: Dialect, text: string): string {
  if (dialect === 'sqlite') return text
  let pgText = numbered.get(text)
  if (pgText === undefined) {
    let n = 0
    pgText = text.replace(/\?/g, () => `$${++n}`)
    numbered.set(text, pgText)
    // A fixed set (the hot paths' texts), so each pooled connection holds a bounded number.
    nameStatement(pgText)
  }
  return pgText
}

export interface Ran<R> {
  rows: R[]
  /** Rows changed by an INSERT, UPDATE or DELETE without RETURNING. */
  affected: number
}

/**
 * Runs `text` in `tx`, a transaction on `db` (on SQLite straight on the connection it holds), or
 * outside any transaction when `tx` is `db.kysely` (a statement that commits on its own).
 */
export async function run<R>(tx: Executor, db: Db, text: string, parameters: unknown[]): Promise<Ran<R>> {
  if (db.runInTransaction && tx.isTransaction) {
    const { rows, affected } = db.runInTransaction(text, parameters)
    return { rows: rows as R[], affected }
  }
  const result = await tx.executeQuery<R>(CompiledQuery.raw(textFor(db.dialect, text), parameters))
  return { rows: result.rows, affected: Number(result.numAffectedRows ?? 0n) }
}
