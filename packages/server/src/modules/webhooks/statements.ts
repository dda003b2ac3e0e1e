// Hot-path SQL of the delivery engine, run as plain text. Building and compiling a query through
// Kysely's builder costs more than SQLite takes to run it, and the engine runs several statements per
// delivery; a fixed text is also prepared once (SQLite statement cache). Texts use `?` placeholders,
// numbered `$1…$n` for PostgreSQL. A list travels as one parameter (a JSON array on SQLite, an array on
// PostgreSQL), so a text never depends on how many ids it is given.
import { CompiledQuery } from 'kysely'
import type { Dialect, Executor } from '../../platform/db/index.ts'

const numbered = new Map<string, string>()

function textFor(dialect: Dialect, text: string): string {
  if (dialect === 'sqlite') return text
  let pgText = numbered.get(text)
  if (pgText === undefined) {
    let n = 0
    pgText = text.replace(/\?/g, () => `$${++n}`)
    numbered.set(text, pgText)
  }
  return pgText
}

export interface Ran<R> {
  rows: R[]
  /** Rows changed by an INSERT, UPDATE or DELETE without RETURNING. */
  affected: number
}

export async function run<R>(
  db: Executor,
  dialect: Dialect,
  text: string,
  parameters: unknown[],
): Promise<Ran<R>> {
  const result = await db.executeQuery<R>(CompiledQuery.raw(textFor(dialect, text), parameters))
  return { rows: result.rows, affected: Number(result.numAffectedRows ?? 0n) }
}

/** `column IN (the list)`, the list being one parameter made by listParam. */
export function inList(dialect: Dialect, column: string): string {
  return dialect === 'postgres'
    ? `${column} = any(?::text[])`
    : `${column} in (select value from json_each(?))`
}

export function listParam(dialect: Dialect, values: readonly string[]): unknown {
  return dialect === 'postgres' ? values : JSON.stringify(values)
}

/** Locks the selected delivery rows until commit; other claimers skip them (PostgreSQL only). */
export function lockRows(dialect: Dialect): string {
  return dialect === 'postgres' ? ' for update of d skip locked' : ''
}
