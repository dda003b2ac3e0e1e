// PostgreSQL: a server's pooled connections opened and warmed before its first request. A
// connection opened during a burst costs the request that waits for it ~15 ms to connect and
// ~13 ms more for its first statement (the backend loads the catalog entries of every table and
// index it touches) against ~2 ms warm, measured on the development VM; a burst that needs eight
// of them at once on two cores made the p99 at 400 events/s 0.3-0.5 s (docs/benchmarks.md).
import type pg from 'pg'

/**
 * Every table of the connection's current schema, each planned once (`limit 0` reads no row), in
 * the order of their names (pg_class's own order moves as other schemas come and go).
 */
const TOUCH_TABLES = `select string_agg(format('(select 1 from %I limit 0)', relname), ' union all ' order by relname) as touch
  from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'r'`

/** Opens `size` connections of the pool at once and loads the schema's tables in each. */
export async function warmPool(pool: pg.Pool, size: number): Promise<void> {
  const opened = await Promise.allSettled(Array.from({ length: size }, () => pool.connect()))
  // Every connection that did open goes back to the pool, whatever failed.
  const clients = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
  try {
    const failed = opened.find((result) => result.status === 'rejected')
    if (failed) throw failed.reason
    const first = clients[0]
    if (!first) return
    const { rows } = await first.query<{ touch: string | null }>(TOUCH_TABLES)
    const touch = rows[0]?.touch
    if (touch) await Promise.all(clients.map((client) => client.query(touch)))
  } finally {
    for (const client of clients) client.release()
  }
}
