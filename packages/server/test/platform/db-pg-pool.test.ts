// PostgreSQL's pool as `tessera serve` and `tessera worker` hold it (platform/db/pg-pool-warmth.ts):
// every pooled connection open before the first request, each having planned every table of the
// schema once; and a database that cannot give the whole pool only costs a warning.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import pino from 'pino'
import { warmConnections } from '../../src/app/server-context.ts'
import { migrate, openDatabase } from '../../src/platform/db/index.ts'
import { uniqueName } from '../support/harness.ts'

const url = process.env.TESSERA_TEST_DATABASE_URL

describe('a warm PostgreSQL pool', { skip: !url }, () => {
  test('warm() opens the whole pool, each connection touching every table', async () => {
    const pgSchema = uniqueName('t')
    const db = await openDatabase({ databaseUrl: url, dataDir: '/nonexistent', pgSchema, pgPoolSize: 4 })
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    const pooled = async () =>
      (
        await admin.query<{ query: string }>(
          'select query from pg_stat_activity where application_name = $1',
          [`tessera-pool:${pgSchema}`],
        )
      ).rows
    try {
      await migrate(db)
      const before = (await pooled()).length
      assert.ok(before < 4, `migrations alone use fewer connections (${before})`)
      await db.warm?.()
      const rows = await pooled()
      assert.equal(rows.length, 4, 'every pooled connection is open')
      for (const { query } of rows) {
        // pg_stat_activity keeps the first 1 KiB of a query (track_activity_query_size): tables
        // early in the alphabetical list, which the cut never reaches.
        for (const table of ['accounts', 'events', 'deliveries', 'files']) {
          assert.match(query, new RegExp(`from "?${table}"? limit 0`), `${table} in ${query.slice(0, 120)}`)
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal((await pooled()).length, 4, 'and they stay open')
    } finally {
      await db.close()
      await admin.query(`drop schema if exists ${pgSchema} cascade`)
      await admin.end()
    }
  })

  // A leaked connection would also hang db.close() (the pool waits for it): the timeout fails that.
  test('a database that gives only part of the pool: warm() fails, every opened connection goes back', {
    timeout: 20_000,
  }, async () => {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    const role = uniqueName('limited')
    await admin.query(`create role ${role} login connection limit 2`)
    const limited = new URL(url ?? '')
    limited.username = role
    limited.password = ''
    const db = await openDatabase({ databaseUrl: limited.toString(), dataDir: '/nonexistent', pgPoolSize: 4 })
    try {
      await assert.rejects(db.warm?.() ?? Promise.resolve(), /too many connections/)
      // The two that opened are in the pool, not leaked: queries run on them.
      const answers = await Promise.all(
        [1, 2].map(() => sql<{ one: number }>`select 1 as one`.execute(db.kysely)),
      )
      assert.deepEqual(
        answers.map((r) => r.rows[0]?.one),
        [1, 1],
      )
    } finally {
      await db.close()
      await admin.query(`drop role ${role}`)
      await admin.end()
    }
  })
})

test('warmConnections: a pool that cannot open is a warning, not a failed start', async () => {
  const lines: string[] = []
  const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) })
  const db = { warm: () => Promise.reject(new Error('sorry, too many clients already')) }
  await warmConnections({ db: db as never, log })
  assert.equal(lines.length, 1)
  assert.match(lines[0] ?? '', /too many clients/)
  assert.match(lines[0] ?? '', /open on demand/)
  assert.match(lines[0] ?? '', /max_connections/)
})
