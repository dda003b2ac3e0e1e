// Hot-path queries compiled once (see precompiled below).
import { type Compilable, type CompiledQuery, createQueryId } from 'kysely'
import type { Executor } from './index.ts'
import { nameStatement } from './pg-named.ts'

/** Answers a read without Kysely's usual path, or returns undefined when it cannot. */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => Promise<unknown[]> | undefined

const directReads = new WeakMap<Executor, DirectRead>()

/** SQLite (see openDatabase): reads of the root executor have a faster path. */
export function registerDirectRead(db: Executor, read: DirectRead): void {
  directReads.set(db, read)
}

/**
 * A query run on every request, compiled once per executor: building and compiling it through
 * Kysely costs more than executing it. Later calls bind their arguments to the compiled SQL, so
 * `build` must use each argument exactly once, in order, as a parameter (checked on first use).
 * Nothing but the SQL text is kept: every call reads the database afresh. On PostgreSQL the text
 * runs as a named prepared statement (pg-named.ts).
 */
export function precompiled<A extends unknown[], R>(build: (db: Executor, ...args: A) => Compilable<R>) {
  const compiled = new WeakMap<Executor, CompiledQuery<R>>()
  return async (db: Executor, ...args: A): Promise<R[]> => {
    let template = compiled.get(db)
    if (!template) {
      template = build(db, ...args).compile()
      if (template.parameters.length !== args.length || template.parameters.some((p, i) => p !== args[i])) {
        throw new Error('precompiled query: parameters must be the arguments, in order')
      }
      compiled.set(db, template)
      nameStatement(template.sql)
    }
    const direct = directReads.get(db)?.(template.sql, args)
    if (direct) return (await direct) as R[]
    const { rows } = await db.executeQuery<R>({ ...template, parameters: args, queryId: createQueryId() })
    return rows
  }
}
