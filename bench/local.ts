// What the benchmarks that start servers share: a free loopback port, and a fresh PostgreSQL schema
// reached through the URL (libpq's `options`), dropped afterwards.
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:net'
import pg from 'pg'

/** A TCP port free on 127.0.0.1 at the time of the call. */
export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  server.close()
  await once(server, 'close')
  return port
}

export interface BenchSchema {
  schema: string
  /** `url` whose connections use the schema (search_path). */
  url: string
  drop(): Promise<void>
}

/** Creates `bench_<random>` on the database of `url`. */
export async function benchSchema(url: string): Promise<BenchSchema> {
  const schema = `bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query(`create schema ${schema}`)
  } finally {
    await admin.end()
  }
  const withSchema = new URL(url)
  withSchema.searchParams.set('options', `-c search_path=${schema}`)
  return {
    schema,
    url: withSchema.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`drop schema if exists ${schema} cascade`)
      } finally {
        await client.end()
      }
    },
  }
}
