// Event outbox and delivery worker end to end, against real loopback receivers, on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { verifyWebhook } from '@tessera/client/webhooks'
import { compare } from 'bcryptjs'
import pino from 'pino'
import { Webhook } from 'standardwebhooks'
import { buildApp } from '../../src/app/app.ts'
import { DeliveryWorker, envelopeBody, nextDelay } from '../../src/delivery/index.ts'
import { emitEvent } from '../../src/events/index.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testConfig, testKeys } from '../support/harness.ts'
import {
  type Behaviour,
  deliveriesOf,
  emit,
  ok,
  Receiver,
  register,
  SECRET,
  settled,
  sleep,
  until,
} from '../support/receiver.ts'

const SECRET2 = 'Hq3Vn8sYe5Ud1Rk6Jw0F'

function attemptsOf(t: TestApp, deliveryId: string) {
  return t.db.kysely
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute()
}

const sampleData = (n = 1) => ({
  user: { email: 'someone@example.com' },
  nodeIdToAttributes: { [`node-${n}`]: { color: 'red' } },
})

for (const dialect of dialects()) {
  describe(`webhook delivery on ${dialect.name}`, () => {
    let t: TestApp
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      t = await startApp(dialect, { webhookRetryScheduleMs: [0, 200, 200], webhookTimeoutMs: 2000 })
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    test('without secretToken the server generates one: answered once, verifies with standardwebhooks', async () => {
      const user = await signedIn(t.app)
      const headers = { authorization: `Bearer ${user.authToken}` }
      const url = rx.on('/generated', ok)
      const created = await t.app.inject({
        method: 'PUT',
        url: '/webhook/',
        headers,
        payload: { event: 'attribute_updated', url },
      })
      assert.equal(created.statusCode, 200, created.body)
      const body = created.json()
      assert.deepEqual(Object.keys(body).sort(), ['data', 'secretToken', 'success'])
      const secret: string = body.secretToken
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32)
      assert.ok(!JSON.stringify(body.data).includes(secret.slice(6)))
      // Never again: not in the list, not in the record.
      for (const path of ['/webhook/', `/webhook/${body.data.id}`]) {
        const again = await t.app.inject({ method: 'GET', url: path, headers })
        assert.equal(again.statusCode, 200, again.body)
        assert.ok(!again.body.includes(secret.slice(6)), path)
        assert.ok(!again.body.includes('secretToken'), path)
      }
      // A given secret is not echoed.
      const given = await t.app.inject({
        method: 'PUT',
        url: '/webhook/',
        headers,
        payload: { event: 'file_uploaded', url, secretToken: SECRET },
      })
      assert.deepEqual(Object.keys(given.json()).sort(), ['data', 'success'])
      await emit(t, {
        event: 'attribute_updated',
        fileId: '0123456789abcdef01234567',
        fileOwnerId: user.account.id,
        data: sampleData(),
      })
      const [delivery] = await settled(t, body.data.id)
      assert.equal(delivery?.status, 'succeeded')
      const [got] = rx.at('/generated')
      assert.ok(got)
      const received = got.headers as Record<string, string>
      // As given, by a Standard Webhooks library, and by @tessera/client's verifier.
      assert.deepEqual(new Webhook(secret).verify(got.body, received), JSON.parse(got.body))
      const envelope = await verifyWebhook({ headers: received, body: got.body, secret })
      assert.equal(envelope.event, 'attribute_updated')
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.from(SECRET).toString('base64')}`).verify(got.body, received),
      )
      assert.equal(await compare(secret, String(got.headers['x-service-token'])), true)
    })

    test('a committed emit delivers exactly the envelope with bcrypt and Standard Webhooks headers', async () => {
      const user = await signedIn(t.app)
      const url = rx.on('/committed', ok)
      const hookId = await register(t.app, user.authToken, 'attribute_updated', url)
      const fileId = '0123456789abcdef01234567'
      const before = Date.now()
      const emitted = await emit(t, {
        event: 'attribute_updated',
        fileId,
        fileOwnerId: user.account.id,
        data: sampleData(),
      })
      assert.equal(emitted.deliveries, 1)
      const [delivery] = await settled(t, hookId)
      assert.equal(delivery?.status, 'succeeded')
      const [got] = rx.at('/committed')
      assert.ok(got)
      assert.equal(rx.at('/committed').length, 1)

      const envelope = JSON.parse(got.body)
      assert.deepEqual(Object.keys(envelope), ['file', 'event', 'data', 'owner', 'runTimestamp', 'uuid'])
      assert.equal(envelope.file, fileId)
      assert.equal(envelope.event, 'attribute_updated')
      assert.deepEqual(envelope.data, sampleData())
      assert.equal(envelope.owner, user.account.email)
      assert.ok(Number.isInteger(envelope.runTimestamp) && String(envelope.runTimestamp).length === 13)
      assert.ok(envelope.runTimestamp >= before && envelope.runTimestamp <= Date.now())
      assert.match(envelope.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.equal(envelope.uuid, delivery?.uuid)

      assert.equal(got.headers['content-type'], 'application/json')
      assert.equal(await compare(SECRET, String(got.headers['x-service-token'])), true)
      assert.equal(await compare('another secret value', String(got.headers['x-service-token'])), false)
      assert.equal(got.headers['webhook-id'], envelope.uuid)
      const verified = new Webhook(`whsec_${Buffer.from(SECRET).toString('base64')}`).verify(
        got.body,
        got.headers as Record<string, string>,
      )
      assert.deepEqual(verified, envelope)
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.from(SECRET2).toString('base64')}`).verify(
          got.body,
          got.headers as Record<string, string>,
        ),
      )
      const attempts = await attemptsOf(t, delivery?.id ?? '')
      assert.equal(attempts.length, 1)
      assert.equal(attempts[0]?.status_code, 200)
      assert.equal(attempts[0]?.error_code, null)
    })

    test('a rolled-back emit leaves no event, no delivery and sends nothing', async () => {
      const user = await signedIn(t.app)
      const url = rx.on('/rolledback', ok)
      const hookId = await register(t.app, user.authToken, 'file_uploaded', url)
      await assert.rejects(
        t.db.kysely.transaction().execute(async (tx) => {
          const out = await emitEvent(t.app.ctx, tx, {
            event: 'file_uploaded',
            fileId: 'abcdefabcdefabcdefabcdef',
            fileOwnerId: user.account.id,
            data: { _id: 'abcdefabcdefabcdefabcdef' },
          })
          assert.equal(out.deliveries, 1)
          throw new Error('change failed')
        }),
        /change failed/,
      )
      await sleep(600)
      assert.equal(rx.at('/rolledback').length, 0)
      assert.equal((await deliveriesOf(t, hookId)).length, 0)
      const events = await t.db.kysely
        .selectFrom('events')
        .selectAll()
        .where('file_id', '=', 'abcdefabcdefabcdefabcdef')
        .execute()
      assert.equal(events.length, 0)
    })

    test('500 then success: retried with the same uuid and a fresh signature; attempts logged', async () => {
      const user = await signedIn(t.app)
      const url = rx.on('/flaky', (_req, res, nth) => {
        if (nth === 1) {
          res.writeHead(500, { 'content-type': 'application/json' })
          res.end('{"success":false,"error":"boom"}')
        } else ok(_req, res)
      })
      const hookId = await register(t.app, user.authToken, 'file_optimized', url)
      await emit(t, {
        event: 'file_optimized',
        fileId: '111111111111111111111111',
        fileOwnerId: user.account.id,
        data: { state: 'converting' },
      })
      const [delivery] = await settled(t, hookId)
      assert.equal(delivery?.status, 'succeeded')
      assert.equal(delivery?.attempts, 2)
      const [first, second] = rx.at('/flaky')
      assert.ok(first && second)
      assert.equal(first.body, second.body)
      assert.equal(first.headers['webhook-id'], second.headers['webhook-id'])
      // The retry waited for the schedule's second step (200 ms ± 20%).
      assert.ok(second.at - first.at >= 150, `retry after ${second.at - first.at} ms`)
      for (const r of [first, second]) {
        new Webhook(`whsec_${Buffer.from(SECRET).toString('base64')}`).verify(
          r.body,
          r.headers as Record<string, string>,
        )
      }
      const attempts = await attemptsOf(t, delivery?.id ?? '')
      assert.deepEqual(
        attempts.map((a) => [a.attempt, a.status_code, a.error_code]),
        [
          [1, 500, 'E_STATUS'],
          [2, 200, null],
        ],
      )
      assert.match(attempts[0]?.response_excerpt ?? '', /boom/)
      assert.ok((attempts[0]?.duration_ms ?? -1) >= 0)
    })

    test('text/plain and success:false are failures; after the last attempt the delivery is failed', async () => {
      const user = await signedIn(t.app)
      const plain = rx.on('/plain', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.end('{"success":true}')
      })
      const falsy = rx.on('/falsy', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"success":false}')
      })
      const plainId = await register(t.app, user.authToken, 'annotation_created', plain)
      const falsyId = await register(t.app, user.authToken, 'annotation_created', falsy)
      await emit(t, {
        event: 'annotation_created',
        fileId: '222222222222222222222222',
        fileOwnerId: user.account.id,
        data: { name: 'a' },
      })
      for (const [id, code, path] of [
        [plainId, 'E_CONTENT_TYPE', '/plain'],
        [falsyId, 'E_BODY', '/falsy'],
      ] as const) {
        const [delivery] = await settled(t, id)
        assert.equal(delivery?.status, 'failed', path)
        assert.equal(delivery?.attempts, 3)
        assert.equal(delivery?.last_error_code, code)
        assert.equal(rx.at(path).length, 3)
        const attempts = await attemptsOf(t, delivery?.id ?? '')
        assert.deepEqual(
          attempts.map((a) => a.error_code),
          [code, code, code],
        )
      }
    })

    test('410 Gone disables the webhook; later events are recorded as paused and not sent', async () => {
      const user = await signedIn(t.app)
      const url = rx.on('/gone', (_req, res) => {
        res.writeHead(410, { 'content-type': 'application/json' })
        res.end('{}')
      })
      const hookId = await register(t.app, user.authToken, 'configuration_created', url)
      const input = {
        event: 'configuration_created' as const,
        fileId: '333333333333333333333333',
        fileOwnerId: user.account.id,
        data: {},
      }
      await emit(t, input)
      const [delivery] = await settled(t, hookId)
      assert.equal(delivery?.status, 'failed')
      assert.equal(delivery?.attempts, 1)
      assert.equal(rx.at('/gone').length, 1)
      const res = await t.app.inject({ method: 'GET', url: `/webhook/${hookId}`, headers: user.headers })
      assert.equal(res.json().data.attributes.disabled, true)
      assert.equal(res.json().data.attributes.disabledReason, 'gone', 'the owner can read why')
      assert.equal(res.json().data.attributes.__v, 1)

      await emit(t, input)
      const rows = await settled(t, hookId, 2)
      assert.equal(rows[1]?.status, 'paused')
      await sleep(400)
      assert.equal(rx.at('/gone').length, 1)
    })

    test('fan-out: only webhooks of accounts that may read the file, owner = webhook owner', async () => {
      const alice = await signedIn(t.app)
      const bob = await signedIn(t.app)
      const carol = await signedIn(t.app)
      const aliceHook = await register(t.app, alice.authToken, 'annotation_updated', rx.on('/fan/alice', ok))
      const bobHook = await register(t.app, bob.authToken, 'annotation_updated', rx.on('/fan/bob', ok))
      const carolHook = await register(t.app, carol.authToken, 'annotation_updated', rx.on('/fan/carol', ok))
      // Alice also listens to another event: not delivered.
      await register(t.app, alice.authToken, 'annotation_removed', rx.on('/fan/alice-removed', ok))
      const out = await emit(t, {
        event: 'annotation_updated',
        fileId: '444444444444444444444444',
        fileOwnerId: alice.account.id,
        readerAccountIds: [bob.account.id],
        data: { old: {}, new: {} },
      })
      assert.equal(out.deliveries, 2)
      await settled(t, aliceHook)
      await settled(t, bobHook)
      await sleep(300)
      assert.equal(JSON.parse(rx.at('/fan/alice')[0]?.body ?? '{}').owner, alice.account.email)
      assert.equal(JSON.parse(rx.at('/fan/bob')[0]?.body ?? '{}').owner, bob.account.email)
      assert.notEqual(
        rx.at('/fan/alice')[0]?.headers['webhook-id'],
        rx.at('/fan/bob')[0]?.headers['webhook-id'],
      )
      assert.equal(rx.at('/fan/carol').length, 0)
      assert.equal(rx.at('/fan/alice-removed').length, 0)
      assert.equal((await deliveriesOf(t, carolHook)).length, 0)
    })

    test('a disabled webhook records deliveries as paused; a rotated secret signs with both', async () => {
      const user = await signedIn(t.app)
      const hookId = await register(t.app, user.authToken, 'configuration_updated', rx.on('/rotate', ok))
      const patch = (payload: object) =>
        t.app.inject({ method: 'PATCH', url: `/webhook/${hookId}`, headers: user.headers, payload })
      assert.equal((await patch({ disabled: true })).statusCode, 200)
      const input = {
        event: 'configuration_updated' as const,
        fileId: '555555555555555555555555',
        fileOwnerId: user.account.id,
        data: { old: {}, new: {} },
      }
      await emit(t, input)
      const [paused] = await settled(t, hookId)
      assert.equal(paused?.status, 'paused')
      assert.equal(rx.at('/rotate').length, 0)

      assert.equal((await patch({ disabled: false, secretToken: SECRET2 })).statusCode, 200)
      await emit(t, input)
      const rows = await settled(t, hookId, 2)
      assert.equal(rows[1]?.status, 'succeeded')
      const [got] = rx.at('/rotate')
      assert.ok(got)
      const headers = got.headers as Record<string, string>
      assert.equal(headers['webhook-signature']?.split(' ').length, 2)
      new Webhook(`whsec_${Buffer.from(SECRET2).toString('base64')}`).verify(got.body, headers)
      new Webhook(`whsec_${Buffer.from(SECRET).toString('base64')}`).verify(got.body, headers)
      assert.equal(await compare(SECRET2, headers['x-service-token'] ?? ''), true)
    })
  })

  describe(`webhook delivery limits on ${dialect.name}`, () => {
    const rx = new Receiver()
    before(() => rx.start())
    after(() => rx.stop())

    test('at most webhookMaxInFlight concurrent attempts per webhook', async () => {
      const t = await startApp(dialect, { webhookMaxInFlight: 2, webhookRetryScheduleMs: [0, 100] })
      try {
        const user = await signedIn(t.app)
        const slow: Behaviour = async (req, res) => {
          await sleep(150)
          ok(req, res)
        }
        const hookId = await register(t.app, user.authToken, 'file_uploaded', rx.on('/slow', slow))
        await t.db.kysely.transaction().execute(async (tx) => {
          for (let i = 0; i < 6; i++) {
            await emitEvent(t.app.ctx, tx, {
              event: 'file_uploaded',
              fileId: `66666666666666666666666${i}`,
              fileOwnerId: user.account.id,
              data: { i },
            })
          }
        })
        const rows = await settled(t, hookId, 6)
        assert.ok(rows.every((r) => r.status === 'succeeded'))
        assert.equal(rx.at('/slow').length, 6)
        assert.equal(rx.maxActive.get('/slow'), 2)
      } finally {
        await t.close()
      }
    })

    test('a webhook failing longer than webhookDisableAfterMs is disabled and its retries paused', async () => {
      const t = await startApp(dialect, {
        webhookDisableAfterMs: 150,
        webhookRetryScheduleMs: [0, 200, 200, 200],
      })
      try {
        const user = await signedIn(t.app)
        const url = rx.on('/down', (_req, res) => {
          res.writeHead(503, { 'content-type': 'application/json' })
          res.end('{}')
        })
        const hookId = await register(t.app, user.authToken, 'file_uploaded', url)
        await emit(t, {
          event: 'file_uploaded',
          fileId: '777777777777777777777777',
          fileOwnerId: user.account.id,
          data: {},
        })
        const [delivery] = await settled(t, hookId)
        assert.equal(delivery?.status, 'paused')
        assert.equal(delivery?.attempts, 2)
        const hook = await t.db.kysely
          .selectFrom('webhooks')
          .selectAll()
          .where('id', '=', hookId)
          .executeTakeFirstOrThrow()
        assert.equal(hook.disabled, 1)
        assert.equal(hook.disabled_reason, 'failing')
        const res = await t.app.inject({ method: 'GET', url: `/webhook/${hookId}`, headers: user.headers })
        assert.equal(res.json().data.attributes.disabledReason, 'failing')
      } finally {
        await t.close()
      }
    })
  })
}

for (const dialect of dialects()) {
  describe(`delivery worker lifecycle on ${dialect.name}`, () => {
    const rx = new Receiver()
    before(() => rx.start())
    after(() => rx.stop())

    test('nothing is sent without a worker; a started worker takes over an expired lease of a dead one', async () => {
      const opened = await dialect.open()
      const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl })
      const app = await buildApp(config, { db: opened.db, keys: await testKeys(), workers: false })
      await app.ready()
      const worker = new DeliveryWorker({
        db: opened.db,
        config,
        log: pino({ level: 'silent' }),
        pollMs: 60_000,
      })
      try {
        const user = await signedIn(app)
        const hookId = await register(app, user.authToken, 'file_uploaded', rx.on('/lifecycle', ok))
        const t = { app, db: opened.db } as TestApp
        await emit(t, {
          event: 'file_uploaded',
          fileId: '888888888888888888888888',
          fileOwnerId: user.account.id,
          data: {},
        })
        await sleep(300)
        assert.equal(rx.at('/lifecycle').length, 0)
        // A worker that claimed it and died: the lease ran out.
        await opened.db.kysely
          .updateTable('deliveries')
          .set({ status: 'delivering', leased_by: 'crashed-worker', lease_expires_at: Date.now() - 1 })
          .where('webhook_id', '=', hookId)
          .execute()
        worker.start()
        const [delivery] = await settled(t, hookId)
        assert.equal(delivery?.status, 'succeeded')
        assert.equal(delivery?.leased_by, null)
        assert.equal(rx.at('/lifecycle').length, 1)

        // An attempt in flight at stop() finishes and is recorded before stop() resolves.
        const slowUrl = rx.on('/lifecycle-slow', async (req, res) => {
          await sleep(400)
          ok(req, res)
        })
        const slowHook = await register(app, user.authToken, 'file_optimized', slowUrl)
        await emit(t, {
          event: 'file_optimized',
          fileId: '999999999999999999999999',
          fileOwnerId: user.account.id,
          data: {},
        })
        await until('the slow attempt to start', async () => rx.at('/lifecycle-slow').length > 0)
        await worker.stop()
        const [slow] = await deliveriesOf(t, slowHook)
        assert.equal(slow?.status, 'succeeded')
      } finally {
        await worker.stop()
        await app.close()
        await opened.drop()
      }
    })

    if (dialect.name === 'postgres') {
      test('an emit committed by another process wakes the worker through LISTEN/NOTIFY', async () => {
        const opened = await dialect.open()
        const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl })
        const app = await buildApp(config, { db: opened.db, keys: await testKeys(), workers: false })
        await app.ready()
        // The "API process": its own pool, so no in-process wake reaches the worker.
        const other = await openDatabase({
          databaseUrl: opened.databaseUrl,
          dataDir: opened.dataDir,
          pgSchema: opened.pgSchema,
        })
        // Polling alone would take a minute.
        const worker = new DeliveryWorker({
          db: opened.db,
          config,
          log: pino({ level: 'silent' }),
          pollMs: 60_000,
        })
        try {
          const user = await signedIn(app)
          const hookId = await register(app, user.authToken, 'file_uploaded', rx.on('/notify', ok))
          worker.start()
          await sleep(500) // LISTEN established, first idle sleep begun
          const committed = Date.now()
          await other.kysely.transaction().execute((tx) =>
            emitEvent({ db: other, config }, tx, {
              event: 'file_uploaded',
              fileId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
              fileOwnerId: user.account.id,
              data: {},
            }),
          )
          await until('the notified delivery', async () => rx.at('/notify').length > 0, 5000)
          assert.ok(Date.now() - committed < 5000)
          const [delivery] = await settled({ app, db: opened.db } as TestApp, hookId)
          assert.equal(delivery?.status, 'succeeded')
        } finally {
          await worker.stop()
          await other.close()
          await app.close()
          await opened.drop()
        }
      })
    }
  })
}

describe('retry schedule', () => {
  const schedule = [0, 5000, 300_000]
  test('±20% jitter around each step', () => {
    assert.equal(nextDelay(schedule, 1, null, 0), 4000)
    assert.equal(nextDelay(schedule, 1, null, 1), 6000)
    assert.equal(nextDelay(schedule, 1, null, 0.5), 5000)
    assert.equal(nextDelay(schedule, 0, null, 0.9), 0)
  })
  test('Retry-After is honoured between the planned delay and the longest step', () => {
    assert.equal(nextDelay(schedule, 1, 60_000, 0.5), 60_000)
    assert.equal(nextDelay(schedule, 1, 1000, 0.5), 5000)
    assert.equal(nextDelay(schedule, 1, 86_400_000, 0.5), 300_000)
  })
})

describe('envelopeBody', () => {
  test('is byte for byte JSON.stringify of the envelope, for any stored data', () => {
    const samples: unknown[] = [
      {},
      { nodeIdToAttributes: { 'n-1': { color: 'red', note: null } }, user: { email: 'a@example.com' } },
      {
        text: 'naïve "quoted" \\ back\nslash \u2028 line sep, emoji \u{1F600}',
        n: [1.5, -0, 1e21, 123456789],
      },
      [],
    ]
    for (const data of samples) {
      const job = {
        file_id: 'f"1',
        event: 'attribute_updated',
        data: JSON.stringify(data),
        owner_email: 'o\u00e9@example.com',
        run_timestamp: 1_700_000_000_123,
        uuid: '0b7e5b9e-7c4f-4f6e-9a53-5d7a3c1d2e4f',
      } as Parameters<typeof envelopeBody>[0]
      const expected = JSON.stringify({
        file: job.file_id,
        event: job.event,
        data: JSON.parse(job.data),
        owner: job.owner_email,
        runTimestamp: job.run_timestamp,
        uuid: job.uuid,
      })
      assert.equal(envelopeBody(job), expected)
    }
  })
})
