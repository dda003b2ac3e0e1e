// Fairness: a receiver that hangs holds at most TESSERA_WEBHOOK_MAX_IN_FLIGHT attempts and never
// delays another webhook's deliveries, on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { emitEvent } from '../../src/events/index.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { emit, hang, ok, Receiver, register, sleep, until } from '../support/receiver.ts'

const MAX_IN_FLIGHT = 8
const SLOW_EVENTS = 40
const HEALTHY_EVENTS = 60
const BASELINE_EVENTS = 20
const TIMEOUT_MS = 2000

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

for (const dialect of dialects()) {
  describe(`webhook fairness on ${dialect.name}`, () => {
    let t: TestApp
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      // Timed-out attempts wait a minute for their retry: the hanging webhook stays saturated by
      // fresh deliveries, not by retries.
      t = await startApp(dialect, {
        webhookTimeoutMs: TIMEOUT_MS,
        webhookMaxInFlight: MAX_IN_FLIGHT,
        webhookRetryScheduleMs: [0, 60_000],
      })
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    test('a hanging receiver saturated at max in flight does not slow a healthy one', async () => {
      const user = await signedIn(t.app)
      // Same host and port for both: no per-origin connection pool may couple them either.
      const slowId = await register(t.app, user.authToken, 'file_uploaded', rx.on('/hang', hang))
      await register(t.app, user.authToken, 'annotation_created', rx.on('/healthy', ok))
      const fileOwnerId = user.account.id
      const fileId = 'fa0000000000000000000000'
      const sentAt = new Map<number, number>()
      /** Emits healthy events `from`..`to`-1 at a steady pace; answers their latencies once all arrived. */
      async function healthyRun(from: number, to: number): Promise<number[]> {
        for (let i = from; i < to; i++) {
          const started = Date.now()
          await emit(t, { event: 'annotation_created', fileId, fileOwnerId, data: { i } })
          sentAt.set(i, started)
          await sleep(45)
        }
        await until('every healthy delivery', async () => rx.at('/healthy').length >= to, 10_000)
        return rx.at('/healthy').flatMap((r) => {
          const i = JSON.parse(r.body).data.i as number
          return i >= from ? [r.at - (sentAt.get(i) ?? 0)] : []
        })
      }

      // The normal latency of this machine right now, before anything hangs.
      const baseline = await healthyRun(0, BASELINE_EVENTS)

      await t.db.kysely.transaction().execute(async (tx) => {
        for (let i = 0; i < SLOW_EVENTS; i++) {
          await emitEvent(t.app.ctx, tx, { event: 'file_uploaded', fileId, fileOwnerId, data: { i } })
        }
      })
      await until('the hanging webhook to be saturated', async () => rx.active.get('/hang') === MAX_IN_FLIGHT)

      // Healthy events arrive while the hanging ones time out (2 s) and the next ones take their
      // slots, so the measurement spans that churn.
      // The engine's own view of the cap: deliveries of the hanging webhook in flight, sampled.
      let maxDelivering = 0
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          const rows = await t.db.kysely
            .selectFrom('deliveries')
            .select('id')
            .where('webhook_id', '=', slowId)
            .where('status', '=', 'delivering')
            .execute()
          maxDelivering = Math.max(maxDelivering, rows.length)
          await sleep(20)
        }
      })()
      const latencies = await healthyRun(BASELINE_EVENTS, BASELINE_EVENTS + HEALTHY_EVENTS)
      const p50 = percentile(latencies, 50)
      const p99 = percentile(latencies, 99)
      const baseP99 = percentile(baseline, 99)
      const report = `healthy p50 ${p50} ms, p99 ${p99} ms, max ${Math.max(...latencies)} ms; baseline p99 ${baseP99} ms`
      // 500 ms on a quiet machine; a loaded one (parallel builds) stretches every latency alike.
      assert.ok(p99 < Math.max(500, 2 * baseP99), report)
      // Not one healthy delivery waited for a hanging attempt to time out.
      assert.ok(Math.max(...latencies) < TIMEOUT_MS, report)

      sampling = false
      await sampler

      // The hanging webhook was held at its cap, never above, and its slots were reused.
      assert.equal(maxDelivering, MAX_IN_FLIGHT)
      assert.ok(rx.at('/hang').length >= 2 * MAX_IN_FLIGHT, `${rx.at('/hang').length} hanging attempts`)
      const timedOut = await t.db.kysely
        .selectFrom('delivery_attempts')
        .innerJoin('deliveries', 'deliveries.id', 'delivery_attempts.delivery_id')
        .select('delivery_attempts.error_code')
        .where('deliveries.webhook_id', '=', slowId)
        .execute()
      assert.ok(timedOut.length >= MAX_IN_FLIGHT)
      assert.ok(timedOut.every((a) => a.error_code === 'E_TIMEOUT'))
    })
  })
}
