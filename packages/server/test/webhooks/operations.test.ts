// Webhook operations: delivery log (list, detail), retry, recover, re-enable, test events —
// against real loopback receivers, on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { Value } from 'typebox/value'
import { EVENT_DATA, EVENT_NAMES, sampleData, WEBHOOK_PAYLOADS } from '../../src/contract/index.ts'
import { newId } from '../../src/platform/ids.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import {
  deliveriesOf,
  emit,
  hang,
  ok,
  Receiver,
  register,
  SECRET,
  settled,
  sleep,
  status,
  until,
} from '../support/receiver.ts'

type Headers = Record<string, string>

for (const dialect of dialects()) {
  describe(`webhook operations on ${dialect.name}`, () => {
    let t: TestApp
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      t = await startApp(dialect, { webhookRetryScheduleMs: [0, 100], webhookTimeoutMs: 2000 })
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    const call = (method: 'GET' | 'POST' | 'PATCH', url: string, headers: Headers, payload?: object) =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) })

    /** Emits `n` events for the user's file; answers the event indexes in emit order. */
    async function emitMany(userId: string, event: 'file_uploaded' | 'annotation_created', n: number) {
      for (let i = 0; i < n; i++) {
        await emit(t, { event, fileId: 'f00000000000000000000000', fileOwnerId: userId, data: { i } })
      }
    }

    test('deliveries list: newest first, keyset pages, status filter, limit bounds', async () => {
      const user = await signedIn(t.app)
      const auth = { authorization: `Bearer ${user.authToken}` }
      const okId = await register(t.app, user.authToken, 'file_uploaded', rx.on('/list/ok', ok))
      await emitMany(user.account.id, 'file_uploaded', 5)
      const rows = await settled(t, okId, 5)

      const page1 = await call('GET', `/webhook/${okId}/deliveries?limit=2`, auth)
      assert.equal(page1.statusCode, 200, page1.body)
      const body1 = page1.json()
      assert.equal(body1.success, true)
      assert.deepEqual(
        body1.deliveries.map((d: { _id: string }) => d._id),
        [rows[4]?.id, rows[3]?.id],
      )
      const first = body1.deliveries[0]
      assert.deepEqual(Object.keys(first).sort(), [
        '_id',
        'attemptCount',
        'completed',
        'created',
        'event',
        'file',
        'lastErrorCode',
        'lastStatusCode',
        'nextAttemptAt',
        'status',
        'test',
        'updated',
        'uuid',
        'webhook',
      ])
      assert.equal(first.status, 'succeeded')
      assert.equal(first.event, 'file_uploaded')
      assert.equal(first.file, 'f00000000000000000000000')
      assert.equal(first.webhook, okId)
      assert.equal(first.uuid, rows[4]?.uuid)
      assert.equal(first.attemptCount, 1)
      assert.equal(first.lastStatusCode, 200)
      assert.equal(first.test, false)
      assert.equal(first.nextAttemptAt, null)
      assert.ok(Date.parse(first.completed) >= Date.parse(first.created))
      assert.equal(body1.nextCursor, rows[3]?.id)

      const page2 = (
        await call('GET', `/webhook/${okId}/deliveries?limit=2&cursor=${body1.nextCursor}`, auth)
      ).json()
      assert.deepEqual(
        page2.deliveries.map((d: { _id: string }) => d._id),
        [rows[2]?.id, rows[1]?.id],
      )
      const page3 = (
        await call('GET', `/webhook/${okId}/deliveries?limit=2&cursor=${page2.nextCursor}`, auth)
      ).json()
      assert.deepEqual(
        page3.deliveries.map((d: { _id: string }) => d._id),
        [rows[0]?.id],
      )
      assert.equal(page3.nextCursor, null)
      const all = (await call('GET', `/webhook/${okId}/deliveries`, auth)).json()
      assert.equal(all.deliveries.length, 5)
      assert.equal(all.nextCursor, null)

      // Status filter: a receiver that always fails ends up with failed deliveries only.
      const badId = await register(
        t.app,
        user.authToken,
        'annotation_created',
        rx.on('/list/bad', status(500)),
      )
      await emitMany(user.account.id, 'annotation_created', 2)
      await settled(t, badId, 2)
      const failed = (await call('GET', `/webhook/${badId}/deliveries?status=failed`, auth)).json()
      assert.equal(failed.deliveries.length, 2)
      assert.equal(failed.deliveries[0].lastErrorCode, 'E_STATUS')
      assert.equal(failed.deliveries[0].lastStatusCode, 500)
      const none = (await call('GET', `/webhook/${badId}/deliveries?status=succeeded`, auth)).json()
      assert.deepEqual(none.deliveries, [])

      for (const query of ['limit=0', 'limit=201', 'limit=x', 'status=done', 'cursor=zzz', 'other=1']) {
        const res = await call('GET', `/webhook/${okId}/deliveries?${query}`, auth)
        assert.equal(res.statusCode, 400, query)
        assert.equal(problemOf(res).code, query === 'cursor=zzz' ? 'INVALID_CURSOR' : 'VALIDATION_FAILED')
        // The range in words, not as the pattern that checks it.
        if (query === 'limit=0' || query === 'limit=201')
          assert.match(problemOf(res).detail, /limit must be a whole number from 1 to 200/)
      }
      assert.equal((await call('GET', `/webhook/${okId}/deliveries?limit=200`, auth)).statusCode, 200)
    })

    test('delivery detail: payload and every attempt with status, duration, error code, excerpt, times', async () => {
      const user = await signedIn(t.app)
      const url = rx.on('/detail', (req, res, nth) => {
        if (nth === 1) status(503, '{"success":false,"reason":"maintenance"}')(req, res)
        else ok(req, res)
      })
      const hookId = await register(t.app, user.authToken, 'file_uploaded', url)
      await emit(t, {
        event: 'file_uploaded',
        fileId: 'd00000000000000000000000',
        fileOwnerId: user.account.id,
        data: { state: 'queued' },
      })
      const [row] = await settled(t, hookId)
      const res = await call('GET', `/webhook/${hookId}/deliveries/${row?.id}`, {
        authorization: `Bearer ${user.authToken}`,
      })
      assert.equal(res.statusCode, 200, res.body)
      const { delivery } = res.json()
      assert.equal(delivery.status, 'succeeded')
      assert.equal(delivery.attemptCount, 2)
      assert.deepEqual(delivery.payload, JSON.parse(rx.at('/detail')[0]?.body ?? '{}'))
      assert.equal(delivery.payload.owner, user.account.email)
      assert.equal(delivery.attempts.length, 2)
      const [a1, a2] = delivery.attempts
      assert.deepEqual(Object.keys(a1).sort(), [
        'attempt',
        'durationMs',
        'errorCode',
        'errorMessage',
        'finishedAt',
        'responseExcerpt',
        'startedAt',
        'statusCode',
      ])
      assert.equal(a1.attempt, 1)
      assert.equal(a1.statusCode, 503)
      assert.equal(a1.errorCode, 'E_STATUS')
      assert.match(a1.errorMessage, /503/)
      assert.match(a1.responseExcerpt, /maintenance/)
      assert.ok(a1.durationMs >= 0)
      assert.equal(Date.parse(a1.finishedAt) - Date.parse(a1.startedAt), a1.durationMs)
      assert.equal(a2.attempt, 2)
      assert.equal(a2.statusCode, 200)
      assert.equal(a2.errorCode, null)
      assert.equal(a2.errorMessage, null)
      assert.ok(Date.parse(a2.startedAt) >= Date.parse(a1.finishedAt))
    })

    test("another account's webhook or delivery is 404 on every operation; ids are checked", async () => {
      const alice = await signedIn(t.app)
      const bob = await signedIn(t.app)
      const aliceHook = await register(t.app, alice.authToken, 'file_uploaded', rx.on('/scope/a', ok))
      const aliceOther = await register(t.app, alice.authToken, 'file_optimized', rx.on('/scope/a2', ok))
      const bobHook = await register(t.app, bob.authToken, 'file_uploaded', rx.on('/scope/b', ok))
      await emit(t, {
        event: 'file_uploaded',
        fileId: 'e00000000000000000000000',
        fileOwnerId: alice.account.id,
        data: {},
      })
      const [delivery] = await settled(t, aliceHook)
      const asBob = { authorization: `Bearer ${bob.authToken}` }
      const asAlice = { authorization: `Bearer ${alice.authToken}` }
      const d = delivery?.id
      const cases: Array<[Headers, 'GET' | 'POST', string, object?]> = [
        [asBob, 'GET', `/webhook/${aliceHook}/deliveries`],
        [asBob, 'GET', `/webhook/${aliceHook}/deliveries/${d}`],
        [asBob, 'POST', `/webhook/${aliceHook}/deliveries/${d}/retry`],
        [asBob, 'POST', `/webhook/${aliceHook}/recover`, { since: 0 }],
        [asBob, 'POST', `/webhook/${aliceHook}/test`],
        // Bob's own webhook does not reach Alice's delivery, nor does Alice's other webhook.
        [asBob, 'GET', `/webhook/${bobHook}/deliveries/${d}`],
        [asBob, 'POST', `/webhook/${bobHook}/deliveries/${d}/retry`],
        [asAlice, 'GET', `/webhook/${aliceOther}/deliveries/${d}`],
        [asAlice, 'GET', `/webhook/${aliceHook}/deliveries/000000000000000000000000`],
        [asAlice, 'GET', `/webhook/${aliceHook}/deliveries/not-an-id`],
        [asAlice, 'GET', '/webhook/not-an-id/deliveries'],
      ]
      for (const [headers, method, url, payload] of cases) {
        const res = await call(method, url, headers, payload)
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`)
        assert.equal(problemOf(res).code, 'NOT_FOUND')
      }
      assert.equal(rx.at('/scope/a').length, 1)
      assert.equal((await deliveriesOf(t, aliceHook)).length, 1)
      const noToken = await call('GET', `/webhook/${aliceHook}/deliveries`, {})
      assert.equal(noToken.statusCode, 401)
    })

    test('retry re-queues a failed delivery now with the same uuid; 409 while in flight or disabled', async () => {
      const user = await signedIn(t.app)
      const auth = { authorization: `Bearer ${user.authToken}` }
      let healthy = false
      const url = rx.on('/retry', (req, res) => (healthy ? ok(req, res) : status(500)(req, res)))
      const hookId = await register(t.app, user.authToken, 'file_uploaded', url)
      await emit(t, {
        event: 'file_uploaded',
        fileId: 'b00000000000000000000000',
        fileOwnerId: user.account.id,
        data: {},
      })
      const [failed] = await settled(t, hookId)
      assert.equal(failed?.status, 'failed')
      assert.equal(rx.at('/retry').length, 2)

      healthy = true
      const res = await call('POST', `/webhook/${hookId}/deliveries/${failed?.id}/retry`, auth)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().delivery._id, failed?.id)
      assert.ok(['pending', 'delivering', 'succeeded'].includes(res.json().delivery.status))
      await until('the retried delivery', async () => {
        const [row] = await deliveriesOf(t, hookId)
        return row?.status === 'succeeded' ? row : null
      })
      const sent = rx.at('/retry')
      assert.equal(sent.length, 3)
      assert.equal(JSON.parse(sent[2]?.body ?? '{}').uuid, failed?.uuid)
      assert.equal(sent[2]?.headers['webhook-id'], failed?.uuid)
      const detail = (await call('GET', `/webhook/${hookId}/deliveries/${failed?.id}`, auth)).json().delivery
      assert.deepEqual(
        detail.attempts.map((a: { statusCode: number }) => a.statusCode),
        [500, 500, 200],
      )

      // A succeeded delivery can be sent again too.
      const again = await call('POST', `/webhook/${hookId}/deliveries/${failed?.id}/retry`, auth)
      assert.equal(again.statusCode, 200)
      await until('the redelivery', async () => rx.at('/retry').length === 4)

      // In flight: 409 DELIVERY_IN_PROGRESS.
      const slowId = await register(t.app, user.authToken, 'file_optimized', rx.on('/retry/hang', hang))
      await emit(t, {
        event: 'file_optimized',
        fileId: 'b10000000000000000000000',
        fileOwnerId: user.account.id,
        data: {},
      })
      await until('the hanging attempt', async () => rx.at('/retry/hang').length > 0)
      const [inFlight] = await deliveriesOf(t, slowId)
      assert.equal(inFlight?.status, 'delivering')
      const busy = await call('POST', `/webhook/${slowId}/deliveries/${inFlight?.id}/retry`, auth)
      assert.equal(busy.statusCode, 409, busy.body)
      assert.equal(problemOf(busy).code, 'DELIVERY_IN_PROGRESS')

      // Disabled webhook: 409 WEBHOOK_DISABLED, nothing re-queued.
      assert.equal((await call('PATCH', `/webhook/${hookId}`, auth, { disabled: true })).statusCode, 200)
      const off = await call('POST', `/webhook/${hookId}/deliveries/${failed?.id}/retry`, auth)
      assert.equal(off.statusCode, 409)
      assert.equal(problemOf(off).code, 'WEBHOOK_DISABLED')
      assert.equal((await deliveriesOf(t, hookId))[0]?.status, 'succeeded')
    })

    test('re-enabling a webhook (PATCH disabled: false) sends the deliveries paused meanwhile', async () => {
      const user = await signedIn(t.app)
      const auth = { authorization: `Bearer ${user.authToken}` }
      const hookId = await register(t.app, user.authToken, 'annotation_created', rx.on('/reenable', ok))
      const off = await call('PATCH', `/webhook/${hookId}`, auth, { disabled: true })
      assert.equal(off.statusCode, 200)
      assert.equal(off.json().data.attributes.disabledReason, 'owner')
      await emitMany(user.account.id, 'annotation_created', 3)
      const paused = await settled(t, hookId, 3)
      assert.ok(paused.every((row) => row.status === 'paused'))
      await sleep(200)
      assert.equal(rx.at('/reenable').length, 0)

      const res = await call('PATCH', `/webhook/${hookId}`, auth, { disabled: false })
      assert.equal(res.json().data.attributes.disabled, false)
      assert.equal(res.json().data.attributes.disabledReason, null)
      const rows = await until('the released deliveries', async () => {
        const rows = await deliveriesOf(t, hookId)
        return rows.every((row) => row.status === 'succeeded') ? rows : null
      })
      assert.equal(rows.length, 3)
      assert.deepEqual(
        rx
          .at('/reenable')
          .map((r) => JSON.parse(r.body).data.i)
          .sort(),
        [0, 1, 2],
      )
    })

    test('recover re-queues failed and paused deliveries since a moment and enables the webhook', async () => {
      const user = await signedIn(t.app)
      const auth = { authorization: `Bearer ${user.authToken}` }
      let healthy = false
      const url = rx.on('/recover', (req, res) => (healthy ? ok(req, res) : status(502)(req, res)))
      const hookId = await register(t.app, user.authToken, 'file_uploaded', url)
      const emitOne = (i: number) =>
        emit(t, {
          event: 'file_uploaded',
          fileId: 'c00000000000000000000000',
          fileOwnerId: user.account.id,
          data: { i },
        })
      await emitOne(0)
      await settled(t, hookId, 1)
      await sleep(20)
      const since = new Date().toISOString()
      await emitOne(1)
      await emitOne(2)
      await settled(t, hookId, 3)
      // Disabled by its owner: later events wait as paused.
      await call('PATCH', `/webhook/${hookId}`, auth, { disabled: true })
      await emitOne(3)
      const before = await settled(t, hookId, 4)
      assert.deepEqual(
        before.map((r) => r.status),
        ['failed', 'failed', 'failed', 'paused'],
      )
      const sentBefore = rx.at('/recover').length

      for (const bad of [{ since: 'yesterday' }, { since: -1 }, {}, { since: 1, x: 1 }]) {
        const res = await call('POST', `/webhook/${hookId}/recover`, auth, bad)
        assert.equal(res.statusCode, 400, JSON.stringify(bad))
      }

      healthy = true
      const res = await call('POST', `/webhook/${hookId}/recover`, auth, { since })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { success: true, recovered: 3, reenabled: true })
      const after = await until('recovered deliveries', async () => {
        const rows = await deliveriesOf(t, hookId)
        return rows.filter((r) => r.status === 'succeeded').length === 3 ? rows : null
      })
      assert.deepEqual(
        after.map((r) => r.status),
        ['failed', 'succeeded', 'succeeded', 'succeeded'],
      )
      assert.equal(rx.at('/recover').length, sentBefore + 3)
      const hook = (await call('GET', `/webhook/${hookId}`, auth)).json().data.attributes
      assert.equal(hook.disabled, false)

      // Milliseconds work too; nothing left to recover since then.
      const again = await call('POST', `/webhook/${hookId}/recover`, auth, { since: Date.parse(since) })
      assert.deepEqual(again.json(), { success: true, recovered: 0, reenabled: false })
      const all = await call('POST', `/webhook/${hookId}/recover`, auth, { since: 0 })
      assert.deepEqual(all.json(), { success: true, recovered: 1, reenabled: false })
      await until(
        'the oldest delivery',
        async () => (await deliveriesOf(t, hookId))[0]?.status === 'succeeded',
      )
    })

    test('test event: sample of the webhook kind, x-service-test: 1, signed, logged, health untouched', async () => {
      const user = await signedIn(t.app)
      const auth = { authorization: `Bearer ${user.authToken}` }
      const kinds = {
        attribute_updated: (data: Record<string, unknown>) => {
          assert.deepEqual(data.user, { email: user.account.email })
          assert.equal(typeof data.nodeIdToAttributes, 'object')
        },
        file_uploaded: (data: Record<string, unknown>) => {
          assert.equal(data.state, 'queued')
          assert.equal(data.owner, user.account.email)
          assert.equal(data.type, 'file')
          assert.equal(typeof data.size, 'number')
          // As a real file record of this instance names its store (local here).
          assert.equal(data.bucket, 'file://blobs')
        },
        file_optimized: (data: Record<string, unknown>) => {
          assert.equal(data.state, 'converting')
          assert.ok((data.sceneTreeNames as string[]).length > 0)
        },
        annotation_updated: (data: Record<string, unknown>) => {
          const { old, new: next } = data as { old: Record<string, unknown>; new: Record<string, unknown> }
          assert.equal(old._id, next._id)
          assert.ok(Array.isArray(next.permissions))
        },
        configuration_removed: (data: Record<string, unknown>) => {
          assert.equal(data.renderMode, 'phong')
          assert.equal(data.upVector, 'Y+')
        },
      } as const
      for (const [event, check] of Object.entries(kinds)) {
        const path = `/test/${event}`
        const hookId = await register(t.app, user.authToken, event, rx.on(path, ok))
        const res = await call('POST', `/webhook/${hookId}/test`, auth)
        assert.equal(res.statusCode, 200, res.body)
        const queued = res.json().delivery
        assert.equal(queued.test, true)
        assert.equal(queued.event, event)
        await until(`test delivery of ${event}`, async () => rx.at(path).length > 0)
        const [got] = rx.at(path)
        assert.equal(got?.headers['x-service-test'], '1')
        const envelope = JSON.parse(got?.body ?? '{}')
        assert.deepEqual(Object.keys(envelope), ['file', 'event', 'data', 'owner', 'runTimestamp', 'uuid'])
        assert.equal(envelope.event, event)
        assert.equal(envelope.owner, user.account.email)
        assert.equal(envelope.uuid, queued.uuid)
        assert.equal(envelope.file, queued.file)
        check(envelope.data)
        assert.ok(Value.Check(WEBHOOK_PAYLOADS[event as keyof typeof WEBHOOK_PAYLOADS], envelope), event)
        new Webhook(`whsec_${Buffer.from(SECRET).toString('base64')}`).verify(
          got?.body ?? '',
          got?.headers as Headers,
        )
        const detail = await until('the logged test delivery', async () => {
          const d = (await call('GET', `/webhook/${hookId}/deliveries/${queued._id}`, auth)).json().delivery
          return d.status === 'succeeded' ? d : null
        })
        assert.equal(detail.attempts.length, 1)
      }

      // Real deliveries never carry the test header.
      const realId = await register(t.app, user.authToken, 'annotation_removed', rx.on('/test/real', ok))
      await emit(t, {
        event: 'annotation_removed',
        fileId: 'a00000000000000000000000',
        fileOwnerId: user.account.id,
        data: {},
      })
      await settled(t, realId)
      assert.equal(rx.at('/test/real')[0]?.headers['x-service-test'], undefined)

      // A disabled webhook still gets tests; a failing test neither pauses it nor marks it failing.
      const downId = await register(
        t.app,
        user.authToken,
        'configuration_created',
        rx.on('/test/down', status(410)),
      )
      await call('PATCH', `/webhook/${downId}`, auth, { disabled: true })
      const probe = await call('POST', `/webhook/${downId}/test`, auth)
      assert.equal(probe.statusCode, 200)
      const [row] = await settled(t, downId)
      assert.equal(row?.status, 'failed')
      assert.equal(row?.is_test, 1)
      assert.equal(rx.at('/test/down').length, 1)
      const enabled = await call('PATCH', `/webhook/${downId}`, auth, { disabled: false })
      assert.equal(enabled.json().data.attributes.disabled, false)
      const hook = await t.db.kysely
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', downId)
        .executeTakeFirstOrThrow()
      assert.equal(hook.failing_since, null)
      assert.equal(hook.disabled_reason, null)
      // Recover is about real events: the failed test stays failed.
      const recovered = await call('POST', `/webhook/${downId}/recover`, auth, { since: 0 })
      assert.equal(recovered.json().recovered, 0)
    })
  })
}

test('the sample data of every event kind satisfies the payload contract', () => {
  for (const event of EVENT_NAMES) {
    const data = sampleData(event, {
      email: 'a@example.com',
      fileId: newId(),
      newId: () => newId(),
      now: Date.now(),
      bucket: 'file://blobs',
    })
    const errors = [...Value.Errors(EVENT_DATA[event], data)].map((e) => e.message)
    assert.deepEqual(errors, [], event)
  }
})
