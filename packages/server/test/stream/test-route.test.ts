// POST /events/test, every dialect: the sample event reaches the caller's open streams, on this app
// and on another app on the same database (another process), and nobody else's; no webhook
// delivery is made; bad input answers problems.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app/app.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import { signedIn } from '../support/api.ts'
import { type DialectUnderTest, dialects, testConfig, testKeys } from '../support/harness.ts'
import { register, sleep } from '../support/receiver.ts'
import { openStream } from '../support/sse.ts'

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

for (const dialect of dialects()) {
  describe(`POST /events/test on ${dialect.name}`, () => {
    let opened: Awaited<ReturnType<DialectUnderTest['open']>>
    let db2: Awaited<ReturnType<typeof openDatabase>>
    let apps: Array<Awaited<ReturnType<typeof buildApp>>>
    let bases: string[]
    before(async () => {
      opened = await dialect.open()
      const config = testConfig(opened.dataDir, { databaseUrl: opened.databaseUrl, licenses: 100 })
      const keys = await testKeys()
      db2 = await openDatabase({ ...opened, pgSchema: opened.pgSchema })
      // Two apps on one database: two server processes.
      apps = [
        await buildApp(config, { db: opened.db, keys, workers: false }),
        await buildApp(config, { db: db2, keys, workers: false }),
      ]
      bases = await Promise.all(apps.map((app) => app.listen({ port: 0, host: '127.0.0.1' })))
    })
    after(async () => {
      for (const app of apps) await app.close()
      await db2.close()
      await opened.drop()
    })

    test('the sample reaches every open stream of the caller only, and makes no delivery', async () => {
      const [here, there] = apps as [(typeof apps)[0], (typeof apps)[0]]
      const caller = await signedIn(here, 'caller')
      const other = await signedIn(here, 'other')
      // A webhook of the caller for the same event: the test event must not reach it.
      await register(here, caller.authToken, 'file_uploaded', 'http://127.0.0.1:9/hook')
      const streams = await Promise.all(
        bases.map((base) => openStream(base, '/events/stream', bearer(caller.authToken))),
      )
      const stranger = await openStream(String(bases[0]), '/events/stream', bearer(other.authToken))
      for (const s of [...streams, stranger]) assert.equal(s.status, 200, s.text)
      // Sent through the other process: both of the caller's streams hear of it.
      const res = await there.inject({
        method: 'POST',
        url: '/events/test',
        headers: bearer(caller.authToken),
        payload: { event: 'file_uploaded' },
      })
      assert.equal(res.statusCode, 200, res.body)
      const { testEvent } = res.json() as { testEvent: { _id: string; uuid: string; file: string } }
      for (const stream of streams) {
        const [frame] = await stream.waitFor(1)
        assert.equal(frame?.id, testEvent._id)
        assert.equal(frame?.event, 'file_uploaded')
        const envelope = JSON.parse(frame?.data ?? '{}') as Record<string, unknown>
        assert.equal(envelope.uuid, testEvent.uuid)
        assert.equal(envelope.file, testEvent.file)
        assert.equal(envelope.owner, caller.account.email)
        // The contract's sample, as a webhook test delivery carries it.
        assert.equal((envelope.data as { name?: string }).name, 'sample.glb')
      }
      // A later event of its own reaches the stranger's stream; the test event never did.
      const own = await here.inject({
        method: 'POST',
        url: '/events/test',
        headers: bearer(other.authToken),
        payload: { event: 'file_optimized' },
      })
      assert.equal(own.statusCode, 200, own.body)
      const seen = await stranger.waitFor(1)
      await sleep(100)
      assert.deepEqual(
        stranger.parser.events().map((f) => f.event),
        ['file_optimized'],
        JSON.stringify(seen),
      )
      const deliveries = await opened.db.kysely.selectFrom('deliveries').select('id').execute()
      assert.deepEqual(deliveries, [], 'no webhook delivery')
      for (const s of [...streams, stranger]) s.close()
    })

    test('an unknown event answers 400, no token 401, past the rate 429', async () => {
      const app = apps[0] as (typeof apps)[0]
      const caller = await signedIn(app, 'bad')
      const unknown = await app.inject({
        method: 'POST',
        url: '/events/test',
        headers: bearer(caller.authToken),
        payload: { event: 'file_exploded' },
      })
      assert.equal(unknown.statusCode, 400, unknown.body)
      assert.match(String(unknown.headers['content-type']), /^application\/problem\+json/)
      assert.equal(unknown.json().code, 'VALIDATION_FAILED')
      const anonymous = await app.inject({
        method: 'POST',
        url: '/events/test',
        payload: { event: 'file_uploaded' },
      })
      assert.equal(anonymous.statusCode, 401, anonymous.body)
      assert.match(String(anonymous.headers['content-type']), /^application\/problem\+json/)
      // As webhook tests: TESSERA_WEBHOOK_TEST_RATE (10) per account and minute, then 429.
      const send = () =>
        app.inject({
          method: 'POST',
          url: '/events/test',
          headers: bearer(caller.authToken),
          payload: { event: 'annotation_created' },
        })
      for (let n = 0; n < 10; n++) assert.equal((await send()).statusCode, 200)
      const refused = await send()
      assert.equal(refused.statusCode, 429, refused.body)
      assert.equal(refused.json().code, 'TOO_MANY_REQUESTS')
      assert.ok(Number(refused.headers['retry-after']) > 0)
      assert.match(String(refused.headers['ratelimit-policy']), /event-test/)
    })
  })
}
