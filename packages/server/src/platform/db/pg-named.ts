// PostgreSQL: the hot-path queries (precompiled.ts) as named prepared statements. Unnamed, every
// execution is parsed, analysed and planned anew on the server; named, once per connection, and
// later runs send only Bind/Execute. Only the fixed set of precompiled texts is named: a text per
// shape, so each pooled connection holds a bounded number of statements.
import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

const names = new Map<string, string>()

/** Called by precompiled(): this SQL text runs on every request. */
export function nameStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `tessera_${names.size + 1}`)
}

/** The pool as Kysely sees it: queries whose text is named run as prepared statements. */
export function namedStatementPool(pool: pg.Pool): PostgresPool {
  // One wrapper per pooled client, kept as long as the client: Kysely keys its connections by it.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    // biome-ignore lint/suspicious/noExplicitAny: forwards both of Kysely's overloads (text, cursor)
    query(text: any, values?: ReadonlyArray<unknown>): any {
      const name = typeof text === 'string' ? names.get(text) : undefined
      if (name !== undefined) return client.query({ name, text, values: values as unknown[] })
      return client.query(text, values as unknown[])
    },
    release: () => client.release(),
  })
  return {
    async connect() {
      const client = await pool.connect()
      let wrapper = wrappers.get(client)
      if (!wrapper) {
        wrapper = wrap(client)
        wrappers.set(client, wrapper)
      }
      return wrapper
    },
    end: () => pool.end(),
  }
}
