// Webhook registration API: shapes, validation, owner scoping, conflicts, secret confidentiality.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { MAX_WEBHOOKS_PER_ACCOUNT } from '../../src/modules/webhooks/index.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'
const SECRET2 = 'Hq3Vn8sYe5Ud1Rk6Jw0F'

for (const dialect of dialects()) {
  describe(`webhook registration on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect)
    })
    after(() => t.close())

    const put = (headers: Record<string, string>, payload: unknown) =>
      t.app.inject({ method: 'PUT', url: '/webhook/', headers, payload: payload as object })

    test('create answers {success, data: {type, id, attributes}} and the auth token alone suffices', async () => {
      const user = await signedIn(t.app)
      const res = await put(
        { authorization: `Bearer ${user.authToken}` },
        { event: 'file_uploaded', url: 'http://127.0.0.1:9/hook', secretToken: SECRET },
      )
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.deepEqual(Object.keys(body).sort(), ['data', 'success'])
      assert.equal(body.success, true)
      assert.deepEqual(Object.keys(body.data).sort(), ['attributes', 'id', 'type'])
      assert.equal(body.data.type, 'webhook')
      assert.match(body.data.id, /^[0-9a-f]{24}$/)
      const a = body.data.attributes
      assert.deepEqual(Object.keys(a).sort(), [
        '__v',
        '_id',
        'created',
        'disabled',
        'disabledReason',
        'event',
        'owner',
        'url',
      ])
      assert.equal(a._id, body.data.id)
      assert.equal(a.event, 'file_uploaded')
      assert.equal(a.url, 'http://127.0.0.1:9/hook')
      assert.equal(a.owner, user.account.email)
      assert.equal(a.disabled, false)
      assert.equal(a.__v, 0)
      assert.ok(Math.abs(Date.parse(a.created) - Date.now()) < 60_000)
      assert.ok(!res.body.includes(SECRET))

      // With the session too (accepted, not required), and by cookie.
      const withSession = await t.app.inject({ method: 'GET', url: '/webhook/', headers: user.headers })
      assert.equal(withSession.statusCode, 200)
      const byCookie = await t.app.inject({
        method: 'GET',
        url: '/webhook/',
        headers: { cookie: `jsonwebtoken=${user.authToken}` },
      })
      assert.equal(byCookie.statusCode, 200)
      assert.deepEqual(byCookie.json().data, [body.data])
    })

    test('no token → 401', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/webhook/' })
      assert.equal(res.statusCode, 401)
      assert.equal(problemOf(res).code, 'AUTH_TOKEN_MISSING')
    })

    test('validation: event, url, secret, unknown fields', async () => {
      const user = await signedIn(t.app)
      const h = { authorization: `Bearer ${user.authToken}` }
      const cases: Array<[unknown, string]> = [
        [{ event: 'file_deleted', url: 'http://127.0.0.1:9/', secretToken: SECRET }, 'VALIDATION_FAILED'],
        [{ url: 'http://127.0.0.1:9/', secretToken: SECRET }, 'VALIDATION_FAILED'],
        [
          { event: 'file_uploaded', url: 'http://127.0.0.1:9/', secretToken: SECRET, x: 1 },
          'VALIDATION_FAILED',
        ],
        [{ event: 'file_uploaded', url: '/relative', secretToken: SECRET }, 'WEBHOOK_URL_INVALID'],
        [{ event: 'file_uploaded', url: 'ftp://example.com/', secretToken: SECRET }, 'WEBHOOK_URL_INVALID'],
        [
          { event: 'file_uploaded', url: 'http://u:p@127.0.0.1/', secretToken: SECRET },
          'WEBHOOK_URL_INVALID',
        ],
        [{ event: 'file_uploaded', url: 'http://127.0.0.1:9/', secretToken: 'short' }, 'WEAK_SECRET'],
        [
          { event: 'file_uploaded', url: 'http://127.0.0.1:9/', secretToken: 'passwordpassword1234' },
          'WEAK_SECRET',
        ],
        [
          { event: 'file_uploaded', url: 'http://127.0.0.1:9/', secretToken: 'aaaaaaaaaaaaaaaaaaaa' },
          'WEAK_SECRET',
        ],
      ]
      for (const [payload, code] of cases) {
        const res = await put(h, payload)
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload)} → ${res.body}`)
        assert.equal(problemOf(res).code, code, JSON.stringify(payload))
      }
      // Every event name of the spec, plus file_optimization_failed, is accepted.
      for (const event of [
        'attribute_updated',
        'file_uploaded',
        'file_optimized',
        'file_optimization_failed',
        'file_shared',
        'file_unshared',
        'annotation_created',
        'annotation_updated',
        'annotation_removed',
        'configuration_created',
        'configuration_updated',
        'configuration_removed',
      ]) {
        const res = await put(h, { event, url: 'http://127.0.0.1:9/all', secretToken: SECRET })
        assert.equal(res.statusCode, 200, `${event}: ${res.body}`)
      }
    })

    test('private targets are refused unless allowed by config', async () => {
      const strict = await startApp(dialect, { webhookAllowPrivateUrls: false })
      try {
        const user = await signedIn(strict.app)
        const h = { authorization: `Bearer ${user.authToken}` }
        for (const url of [
          'http://127.0.0.1:8080/',
          'http://[::1]/',
          'http://169.254.169.254/latest/meta-data',
          'http://10.0.0.5/',
          'http://192.168.1.1/',
          'http://2130706433/',
        ]) {
          const res = await strict.app.inject({
            method: 'PUT',
            url: '/webhook/',
            headers: h,
            payload: { event: 'file_uploaded', url, secretToken: SECRET },
          })
          assert.equal(res.statusCode, 400, url)
          const p = problemOf(res)
          assert.equal(p.code, 'WEBHOOK_URL_FORBIDDEN', url)
          assert.match(p.detail, /not publicly routable/)
        }
        // A public IP literal passes (no connection is made at registration).
        const ok = await strict.app.inject({
          method: 'PUT',
          url: '/webhook/',
          headers: h,
          payload: { event: 'file_uploaded', url: 'https://8.8.8.8/hook', secretToken: SECRET },
        })
        assert.equal(ok.statusCode, 200, ok.body)
      } finally {
        await strict.close()
      }
    })

    test('same event + url for the same owner → 409 CONFLICT; other owner or event is fine', async () => {
      const alice = await signedIn(t.app)
      const bob = await signedIn(t.app)
      const hook = { event: 'annotation_created', url: 'http://127.0.0.1:9/dup', secretToken: SECRET }
      assert.equal((await put(alice.headers, hook)).statusCode, 200)
      const again = await put(alice.headers, { ...hook, secretToken: SECRET2 })
      assert.equal(again.statusCode, 409)
      assert.equal(problemOf(again).code, 'CONFLICT')
      assert.equal((await put(bob.headers, hook)).statusCode, 200)
      assert.equal((await put(alice.headers, { ...hook, event: 'annotation_removed' })).statusCode, 200)
    })

    test(`at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account → 409 WEBHOOK_LIMIT_REACHED`, async () => {
      const user = await signedIn(t.app)
      // Seed directly (a bcrypt per registration would make this slow), then go through the API.
      const now = Date.now()
      const rows = Array.from({ length: MAX_WEBHOOKS_PER_ACCOUNT - 1 }, (_, i) => ({
        id: `${(Math.floor(now / 1000) - 1000).toString(16)}${i.toString(16).padStart(16, '0')}`,
        owner_id: user.account.id,
        event: 'file_uploaded',
        url: `http://127.0.0.1:9/seed/${i}`,
        secret: SECRET,
        service_token: 'x',
        previous_secret: null,
        previous_secret_expires_at: null,
        disabled: 0,
        disabled_reason: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
        version: 0,
      }))
      await t.db.kysely.insertInto('webhooks').values(rows).execute()
      const last = await put(user.headers, {
        event: 'file_uploaded',
        url: 'http://127.0.0.1:9/100',
        secretToken: SECRET,
      })
      assert.equal(last.statusCode, 200, last.body)
      const over = await put(user.headers, {
        event: 'file_uploaded',
        url: 'http://127.0.0.1:9/101',
        secretToken: SECRET,
      })
      assert.equal(over.statusCode, 409)
      assert.equal(problemOf(over).code, 'WEBHOOK_LIMIT_REACHED')
      const list = await t.app.inject({ method: 'GET', url: '/webhook/', headers: user.headers })
      assert.equal(list.json().data.length, MAX_WEBHOOKS_PER_ACCOUNT)
    })

    test("another account's webhook is 404 NOT_FOUND for get, patch and delete; list is scoped", async () => {
      const alice = await signedIn(t.app)
      const bob = await signedIn(t.app)
      const created = await put(alice.headers, {
        event: 'file_optimized',
        url: 'http://127.0.0.1:9/alice',
        secretToken: SECRET,
      })
      const id = created.json().data.id as string
      for (const [method, payload] of [
        ['GET', undefined],
        ['PATCH', { disabled: true }],
        ['DELETE', undefined],
      ] as const) {
        const res = await t.app.inject({ method, url: `/webhook/${id}`, headers: bob.headers, payload })
        assert.equal(res.statusCode, 404, `${method}: ${res.body}`)
        assert.equal(problemOf(res).code, 'NOT_FOUND')
      }
      for (const bad of ['nope', '000000000000000000000000']) {
        const res = await t.app.inject({ method: 'GET', url: `/webhook/${bad}`, headers: alice.headers })
        assert.equal(res.statusCode, 404)
      }
      const bobList = await t.app.inject({ method: 'GET', url: '/webhook/', headers: bob.headers })
      assert.deepEqual(bobList.json(), { success: true, data: [] })
      // Still there for Alice.
      const mine = await t.app.inject({ method: 'GET', url: `/webhook/${id}`, headers: alice.headers })
      assert.equal(mine.statusCode, 200)
      assert.deepEqual(mine.json(), { success: true, data: created.json().data })
    })

    test('patch changes url, rotates the secret, disables; __v counts; delete answers {success}', async () => {
      const user = await signedIn(t.app)
      const created = (
        await put(user.headers, { event: 'file_uploaded', url: 'http://127.0.0.1:9/a', secretToken: SECRET })
      ).json()
      const id = created.data.id as string
      const patch = (payload: unknown) =>
        t.app.inject({
          method: 'PATCH',
          url: `/webhook/${id}`,
          headers: user.headers,
          payload: payload as object,
        })

      const moved = await patch({ url: 'http://127.0.0.1:9/b' })
      assert.equal(moved.statusCode, 200, moved.body)
      assert.equal(moved.json().data.attributes.url, 'http://127.0.0.1:9/b')
      assert.equal(moved.json().data.attributes.__v, 1)

      const before = await t.db.kysely
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      const rotated = await patch({ secretToken: SECRET2 })
      assert.equal(rotated.statusCode, 200)
      assert.ok(!rotated.body.includes(SECRET2) && !rotated.body.includes(SECRET))
      const row = await t.db.kysely
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      assert.equal(row.secret, SECRET2)
      assert.equal(row.previous_secret, SECRET)
      assert.notEqual(row.service_token, before.service_token)
      const overlap = (row.previous_secret_expires_at ?? 0) - Date.now()
      assert.ok(overlap > 23.9 * 3600_000 && overlap <= 24 * 3600_000, String(overlap))

      const weak = await patch({ secretToken: '1234567890123456' })
      assert.equal(problemOf(weak).code, 'WEAK_SECRET')
      const stale = await patch({ disabled: true, __v: 0 })
      assert.equal(stale.statusCode, 409)
      assert.equal(problemOf(stale).code, 'CONFLICT')
      const empty = await patch({})
      assert.equal(empty.statusCode, 400)

      const disabled = await patch({ disabled: true, __v: 2 })
      assert.equal(disabled.statusCode, 200, disabled.body)
      assert.equal(disabled.json().data.attributes.disabled, true)
      assert.equal(disabled.json().data.attributes.__v, 3)

      // Moving onto another webhook's event + url conflicts.
      await put(user.headers, { event: 'file_uploaded', url: 'http://127.0.0.1:9/c', secretToken: SECRET })
      const clash = await patch({ url: 'http://127.0.0.1:9/c' })
      assert.equal(clash.statusCode, 409)

      const del = await t.app.inject({ method: 'DELETE', url: `/webhook/${id}`, headers: user.headers })
      assert.equal(del.statusCode, 200)
      assert.deepEqual(del.json(), { success: true })
      const gone = await t.app.inject({ method: 'DELETE', url: `/webhook/${id}`, headers: user.headers })
      assert.equal(gone.statusCode, 404)
    })

    test('the secret and its hash never appear in any answer', async () => {
      const user = await signedIn(t.app)
      const created = await put(user.headers, {
        event: 'configuration_created',
        url: 'http://127.0.0.1:9/s',
        secretToken: SECRET,
      })
      const id = created.json().data.id
      const row = await t.db.kysely
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      assert.match(row.service_token, /^\$2[aby]\$10\$/)
      const answers = [
        created,
        await t.app.inject({ method: 'GET', url: '/webhook/', headers: user.headers }),
        await t.app.inject({ method: 'GET', url: `/webhook/${id}`, headers: user.headers }),
        await t.app.inject({
          method: 'PATCH',
          url: `/webhook/${id}`,
          headers: user.headers,
          payload: { disabled: false },
        }),
        await put(user.headers, {
          event: 'configuration_created',
          url: 'http://127.0.0.1:9/s',
          secretToken: SECRET,
        }),
      ]
      for (const res of answers) {
        assert.ok(!res.body.includes(SECRET), res.body)
        assert.ok(!res.body.includes(row.service_token), res.body)
        assert.ok(!/secret/i.test(JSON.stringify(res.json().data ?? {})), res.body)
      }
      const spec = await t.app.inject({ method: 'GET', url: '/openapi.json' })
      assert.equal(spec.statusCode, 200)
      assert.ok(spec.json().paths['/webhook/{id}'].patch)
    })
  })
}
