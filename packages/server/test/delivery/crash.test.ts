// Crash safety of the delivery engine with the real `tessera` binary and a real loopback receiver.
//
// Events are emitted through the outbox API (emitEvent, one transaction per event) by a small
// test-only child process (support/emit-events.ts) that opens the database the server uses —
// exactly what another Tessera process sharing the database does; no public endpoint emits events
// yet, and a separate process keeps SQLite's lock waits from freezing the receiver in this one. The server is SIGKILLed while deliveries are
// in flight and restarted: every event must reach the receiver at least once, and the only
// duplicates allowed are the deliveries that were leased (in flight) at the kill. A short webhook
// timeout keeps the lease short (timeout + 5 s), so the restarted server takes over quickly.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Db } from '../../src/platform/db/index.ts'
import { emitManyElsewhere, registerWebhook, statusCounts, until } from '../support/emitter.ts'
import { type Server, startServer, startWorker, type WorkerProcess } from '../support/process.ts'
import { Sink } from '../support/sink.ts'
import { type ProcessTarget, processTargets } from '../support/targets.ts'

const EVENTS = 5000
const KILL_AFTER = 1500

const engineEnv = {
  TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  TESSERA_WEBHOOK_TIMEOUT: '5s',
  TESSERA_WEBHOOK_RETRY_SCHEDULE: '0s,200ms,200ms,200ms,200ms',
  TESSERA_WEBHOOK_MAX_IN_FLIGHT: '64',
}

async function attemptsPerDelivery(db: Db, webhookId: string) {
  return db.kysely
    .selectFrom('deliveries')
    .leftJoin('delivery_attempts', 'delivery_attempts.delivery_id', 'deliveries.id')
    .select([
      'deliveries.uuid',
      'deliveries.attempts',
      (eb) => eb.fn.count('delivery_attempts.id').as('logged'),
    ])
    .where('deliveries.webhook_id', '=', webhookId)
    .groupBy(['deliveries.id', 'deliveries.uuid', 'deliveries.attempts'])
    .execute()
}

/** Attempts by error code (null = success), to explain a failure. */
function attemptOutcomes(db: Db) {
  return db.kysely
    .selectFrom('delivery_attempts')
    .select(['error_code', 'attempt', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['error_code', 'attempt'])
    .execute()
}

for (const factory of processTargets()) {
  describe(`crash safety on ${factory.name}`, () => {
    let target: ProcessTarget
    let db: Db | undefined
    const processes: Array<Server | WorkerProcess> = []
    const sink = new Sink(2)

    before(async () => {
      await sink.start()
      target = await factory.create()
    })
    after(async () => {
      for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL')
      await db?.close()
      await target.cleanup()
      await sink.stop()
    })

    test(`${EVENTS} events, SIGKILL mid-delivery, restart: all arrive, duplicates ≤ leases at the kill`, async () => {
      const env = { ...target.env, ...engineEnv }
      const first = await startServer(env)
      processes.push(first)
      db = await target.open()
      const hook = await registerWebhook(env, first.baseUrl, sink.url)
      // Killed from inside the receiver, so the kill surely lands while attempts are in flight.
      sink.onReceive = (s) => {
        if (s.unique.size >= KILL_AFTER && first.child.exitCode === null) first.child.kill('SIGKILL')
      }
      await emitManyElsewhere(env, hook.accountId, EVENTS)
      assert.equal(await first.exited, null, 'killed by a signal')
      sink.onReceive = null

      // The dead server's state, frozen: what it had leased is what may have been sent twice.
      const atKill = await statusCounts(db, hook.webhookId)
      const leasedAtKill = atKill.delivering ?? 0
      assert.ok(leasedAtKill > 0, `deliveries in flight at the kill: ${JSON.stringify(atKill)}`)
      assert.ok((atKill.succeeded ?? 0) < EVENTS, 'killed before the end')
      const receivedBeforeRestart = sink.uuids.length

      const second = await startServer(env)
      processes.push(second)
      await until(
        'every delivery succeeded',
        async () => (await statusCounts(db as Db, hook.webhookId)).succeeded === EVENTS,
        90_000,
      )
      assert.ok(sink.uuids.length > receivedBeforeRestart, 'the restarted server delivered the rest')
      const rows = await attemptsPerDelivery(db, hook.webhookId)
      assert.equal(rows.length, EVENTS)
      for (const row of rows) assert.ok(sink.unique.has(row.uuid), `delivery ${row.uuid} never arrived`)
      assert.equal(sink.unique.size, EVENTS)
      assert.ok(
        sink.duplicates <= leasedAtKill,
        `${sink.duplicates} duplicates, ${leasedAtKill} deliveries were in flight at the kill; ` +
          `attempt outcomes: ${JSON.stringify(await attemptOutcomes(db))}`,
      )
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0)
    })

    if (factory.name === 'postgres') {
      test('two worker processes beside an API process never claim one delivery twice', async () => {
        const fresh = await factory.create()
        const env = { ...fresh.env, ...engineEnv }
        let freshDb: Db | undefined
        try {
          const api = await startServer(env, ['--no-workers'])
          processes.push(api)
          // Debug level: each worker logs every attempt with its delivery id.
          const workers = [
            await startWorker({ ...env, TESSERA_LOG_LEVEL: 'debug' }),
            await startWorker({ ...env, TESSERA_LOG_LEVEL: 'debug' }),
          ]
          processes.push(...workers)
          freshDb = await fresh.open()
          const receiver = new Sink(2)
          await receiver.start()
          try {
            const hook = await registerWebhook(env, api.baseUrl, receiver.url)
            const count = 2000
            await emitManyElsewhere(env, hook.accountId, count)
            await until(
              'every delivery succeeded',
              async () => (await statusCounts(freshDb as Db, hook.webhookId)).succeeded === count,
              90_000,
            )
            // Exactly one attempt per delivery, and the receiver saw each uuid exactly once.
            const rows = await attemptsPerDelivery(freshDb, hook.webhookId)
            assert.equal(rows.length, count)
            for (const row of rows) {
              assert.equal(row.attempts, 1)
              assert.equal(Number(row.logged), 1)
            }
            assert.equal(receiver.uuids.length, count)
            assert.equal(receiver.unique.size, count)

            // Both workers took part, no delivery went through both, and the API process sent none.
            const attempted = workers.map((w) => deliveriesAttempted(w.output()))
            assert.ok(attempted[0] && attempted[0].size > 0, 'the first worker delivered')
            assert.ok(attempted[1] && attempted[1].size > 0, 'the second worker delivered')
            for (const id of attempted[0] ?? []) assert.ok(!attempted[1]?.has(id), `${id} claimed twice`)
            assert.equal((attempted[0]?.size ?? 0) + (attempted[1]?.size ?? 0), count)
            assert.equal(deliveriesAttempted(api.output()).size, 0)
            for (const w of workers) {
              w.child.kill('SIGTERM')
              assert.equal(await w.exited, 0)
            }
          } finally {
            await receiver.stop()
          }
        } finally {
          await freshDb?.close()
          await fresh.cleanup()
        }
      })
    }
  })
}

/** Delivery ids of the 'webhook attempt' log lines in a process's output. */
function deliveriesAttempted(output: string): Set<string> {
  const ids = new Set<string>()
  for (const line of output.split('\n')) {
    if (!line.includes('"webhook attempt"')) continue
    const { delivery } = JSON.parse(line) as { delivery?: string }
    if (delivery) ids.add(delivery)
  }
  return ids
}
