// The API/worker split of the `tessera` binary: `serve --no-workers` serves the API and delivers
// nothing, `tessera worker` delivers without serving the API (with --metrics-port it serves its own
// /metrics, /healthz and /readyz), and SIGTERM lets a worker finish what it
// has in flight (or hand the leases back) and exit 0 — on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../../src/platform/db/index.ts'
import { emitMany, registerWebhook, sleep, statusCounts, until } from '../support/emitter.ts'
import { type Server, startServer, startWorker, type WorkerProcess } from '../support/process.ts'
import { Sink } from '../support/sink.ts'
import { type ProcessTarget, processTargets } from '../support/targets.ts'

for (const factory of processTargets()) {
  describe(`tessera serve --no-workers and tessera worker on ${factory.name}`, () => {
    let target: ProcessTarget
    let env: Record<string, string>
    let api: Server
    let db: Db
    const workers: WorkerProcess[] = []
    // Slow enough answers that a SIGTERM surely lands while attempts are in flight.
    const sink = new Sink(300)
    let hook: { accountId: string; webhookId: string }

    before(async () => {
      await sink.start()
      target = await factory.create()
      env = {
        ...target.env,
        TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        TESSERA_WEBHOOK_TIMEOUT: '5s',
        TESSERA_WEBHOOK_MAX_IN_FLIGHT: '4',
      }
      api = await startServer(env, ['--no-workers'])
      db = await target.open()
      hook = await registerWebhook(env, api.baseUrl, sink.url)
    })
    after(async () => {
      for (const p of [api, ...workers]) if (p.child.exitCode === null) p.child.kill('SIGKILL')
      await db?.close()
      await target.cleanup()
      await sink.stop()
    })

    test('serve --no-workers answers the API but delivers nothing', async () => {
      assert.match(api.output(), /"workers":false/)
      assert.equal((await fetch(`${api.baseUrl}/readyz`)).status, 200)
      await emitMany(db, hook.accountId, 20)
      // Longer than the worker's idle poll: a worker in this process would have claimed by now.
      await sleep(2500)
      assert.equal(sink.uuids.length, 0)
      assert.deepEqual(await statusCounts(db, hook.webhookId), { pending: 20 })
    })

    test('worker delivers; SIGTERM finishes in-flight attempts, leaves no lease, exits 0', async () => {
      const first = await startWorker(env)
      workers.push(first)
      assert.doesNotMatch(first.output(), /listening/i)
      await until('attempts in flight', async () => sink.active > 0, 20_000)
      first.child.kill('SIGTERM')
      assert.equal(await first.exited, 0, first.output())
      assert.match(first.output(), /finishing or releasing in-flight work/)

      // Whatever it had sent was answered and recorded; nothing stays leased to the dead worker.
      const counts = await statusCounts(db, hook.webhookId)
      assert.equal(counts.delivering, undefined, JSON.stringify(counts))
      assert.ok((counts.succeeded ?? 0) > 0, JSON.stringify(counts))
      assert.equal(counts.succeeded, sink.unique.size)
      assert.equal((counts.succeeded ?? 0) + (counts.pending ?? 0), 20)
      const leased = await db.kysely
        .selectFrom('deliveries')
        .select('id')
        .where('leased_by', 'is not', null)
        .execute()
      assert.equal(leased.length, 0)

      // A second worker takes the rest at once (no lease to wait for), and nothing is sent twice.
      // It serves its own /metrics: in a split deployment the delivery counters live in workers.
      const succeededBefore = counts.succeeded ?? 0
      const second = await startWorker(env, ['--metrics-port', '0'])
      workers.push(second)
      assert.ok(second.metricsUrl, second.output())
      await until(
        'all delivered',
        async () => (await statusCounts(db, hook.webhookId)).succeeded === 20,
        30_000,
      )
      assert.equal(sink.unique.size, 20)
      assert.equal(sink.duplicates, 0)
      const scraped = await fetch(second.metricsUrl)
      assert.equal(scraped.status, 200)
      const text = await scraped.text()
      assert.match(
        text,
        new RegExp(`tessera_webhook_deliveries_total{outcome="succeeded"} ${20 - succeededBefore}\\b`),
      )
      assert.match(text, /tessera_webhook_due_backlog \d/)
      assert.equal((await fetch(new URL('/readyz', second.metricsUrl))).status, 200)
      assert.equal((await fetch(new URL('/files', second.metricsUrl))).status, 404)
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0, second.output())
    })
  })
}
