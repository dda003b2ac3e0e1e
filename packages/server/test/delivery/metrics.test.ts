// GET /metrics: delivery counters, latency histogram and backlog gauges, on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testConfig, testKeys } from '../support/harness.ts'
import { emit, ok, Receiver, register, settled, status } from '../support/receiver.ts'

/** The value of one sample line, e.g. `name{label="x"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

async function scrape(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics' })
  assert.equal(res.statusCode, 200, res.body)
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
  return res.body
}

for (const dialect of dialects()) {
  describe(`metrics on ${dialect.name}`, () => {
    let t: TestApp
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      t = await startApp(dialect, { webhookRetryScheduleMs: [0, 100] })
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    test('deliveries by outcome, attempts by error code and latency, without auth', async () => {
      const empty = await scrape(t.app)
      assert.equal(sample(empty, 'tessera_webhook_deliveries_total{outcome="succeeded"}'), 0)
      assert.equal(sample(empty, 'tessera_webhook_attempts_total{code="E_TIMEOUT"}'), 0)
      assert.equal(sample(empty, 'tessera_webhook_delivery_latency_seconds_count'), 0)
      assert.ok(sample(empty, 'tessera_process_cpu_user_seconds_total') !== undefined)

      const user = await signedIn(t.app)
      const okId = await register(t.app, user.authToken, 'file_uploaded', rx.on('/m/ok', ok))
      const badId = await register(t.app, user.authToken, 'file_uploaded', rx.on('/m/bad', status(500)))
      await emit(t, {
        event: 'file_uploaded',
        fileId: 'ab0000000000000000000000',
        fileOwnerId: user.account.id,
        data: {},
      })
      await settled(t, okId)
      await settled(t, badId)

      const text = await scrape(t.app)
      assert.equal(sample(text, 'tessera_webhook_deliveries_total{outcome="succeeded"}'), 1)
      assert.equal(sample(text, 'tessera_webhook_deliveries_total{outcome="failed"}'), 1)
      assert.equal(sample(text, 'tessera_webhook_deliveries_total{outcome="paused"}'), 0)
      assert.equal(sample(text, 'tessera_webhook_attempts_total{code="none"}'), 1)
      assert.equal(sample(text, 'tessera_webhook_attempts_total{code="E_STATUS"}'), 2)
      assert.equal(sample(text, 'tessera_webhook_delivery_latency_seconds_count'), 1)
      const seconds = sample(text, 'tessera_webhook_delivery_latency_seconds_sum') ?? -1
      assert.ok(seconds > 0 && seconds < 5, `latency ${seconds} s`)
      assert.equal(sample(text, 'tessera_webhook_delivery_latency_seconds_bucket{le="+Inf"}'), 1)
      assert.equal(sample(text, 'tessera_webhook_due_backlog'), 0)
      assert.equal(sample(text, 'tessera_webhook_oldest_due_age_seconds'), 0)
    })

    test('due backlog and the age of the oldest due delivery, read at scrape time', async () => {
      // An app without a worker: nothing drains the backlog. Its registry is its own.
      const opened = await dialect.open()
      const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl })
      const app = await buildApp(config, { db: opened.db, keys: await testKeys(), workers: false })
      await app.ready()
      try {
        const user = await signedIn(app)
        const hookId = await register(app, user.authToken, 'annotation_created', rx.on('/m/backlog', ok))
        const other: TestApp = { app, db: opened.db, config, close: async () => {} }
        for (let i = 0; i < 4; i++) {
          await emit(other, {
            event: 'annotation_created',
            fileId: 'ac0000000000000000000000',
            fileOwnerId: user.account.id,
            data: { i },
          })
        }
        const rows = await opened.db.kysely
          .selectFrom('deliveries')
          .select('id')
          .where('webhook_id', '=', hookId)
          .orderBy('id')
          .execute()
        const [a, b, c, d] = rows.map((r) => r.id)
        const now = Date.now()
        const set = (id: string | undefined, values: Record<string, string | number | null>) =>
          opened.db.kysely
            .updateTable('deliveries')
            .set(values)
            .where('id', '=', id ?? '')
            .execute()
        await set(a, { next_attempt_at: now - 30_000 }) // due for 30 s
        await set(b, { status: 'delivering', leased_by: 'dead', lease_expires_at: now - 60_000 }) // lease lost 60 s ago
        await set(c, { status: 'delivering', leased_by: 'alive', lease_expires_at: now + 60_000 }) // in flight
        await set(d, { next_attempt_at: now + 60_000 }) // not due yet

        const text = await scrape(app)
        assert.equal(sample(text, 'tessera_webhook_due_backlog'), 2)
        const age = sample(text, 'tessera_webhook_oldest_due_age_seconds') ?? -1
        assert.ok(age >= 60 && age < 70, `oldest due ${age} s`)
        // This app delivered nothing; the other app's counts are not here.
        assert.equal(sample(text, 'tessera_webhook_deliveries_total{outcome="succeeded"}'), 0)
        assert.equal(rx.at('/m/backlog').length, 0)
      } finally {
        await app.close()
        await opened.drop()
      }
    })
  })
}
