// Rate limits said in headers (docs/api.md, "Rate limits"): the limited routes answer RateLimit-Policy
// and RateLimit (IETF httpapi draft, structured fields) and every 429 has Retry-After. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { rateLimitFields, rateLimitRefusal } from '../../src/platform/rate-limit-headers.ts'
import { newAccount, PASSWORD, problemOf, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'
const POLICY = /^"webhook-manage";q=2;w=60$/
const LEFT = /^"webhook-manage";r=(\d+);t=(\d+)$/

test('the fields are structured-field lists: a quoted policy name with q/w and r/t', () => {
  assert.deepEqual(
    rateLimitFields({ policy: 'login', quota: 10, windowSeconds: 60, remaining: 3, resetSeconds: 41.2 }),
    { 'ratelimit-policy': '"login";q=10;w=60', ratelimit: '"login";r=3;t=42' },
  )
  assert.deepEqual(rateLimitRefusal({ policy: 'x', quota: 1, windowSeconds: 60, resetSeconds: 0.2 }), {
    'ratelimit-policy': '"x";q=1;w=60',
    ratelimit: '"x";r=0;t=1',
    'retry-after': '1',
  })
})

for (const dialect of dialects()) {
  describe(`rate limit headers on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { webhookManageRate: 2, loginMaxFailures: 2 })
    })
    after(async () => t.close())

    test('webhook management: every answer says the budget; the 429 says when to come back', async () => {
      const user = await signedIn(t.app, 'hooks')
      const register = (n: number) =>
        t.app.inject({
          method: 'PUT',
          url: '/webhook/',
          headers: { authorization: `Bearer ${user.authToken}` },
          payload: { event: 'file_uploaded', url: `http://127.0.0.1:9/h${n}`, secretToken: SECRET },
        })
      const first = await register(1)
      assert.equal(first.statusCode, 200, first.body)
      assert.match(String(first.headers['ratelimit-policy']), POLICY)
      assert.equal(LEFT.exec(String(first.headers.ratelimit))?.[1], '1')
      // A refused body still counts and still says so.
      const bad = await t.app.inject({
        method: 'PUT',
        url: '/webhook/',
        headers: { authorization: `Bearer ${user.authToken}` },
        payload: { event: 'file_uploaded', url: 'not a url', secretToken: SECRET },
      })
      assert.equal(bad.statusCode, 400)
      assert.equal(LEFT.exec(String(bad.headers.ratelimit))?.[1], '0')
      const refused = await register(3)
      assert.equal(refused.statusCode, 429)
      assert.equal(problemOf(refused).code, 'TOO_MANY_REQUESTS')
      const left = LEFT.exec(String(refused.headers.ratelimit))
      assert.equal(left?.[1], '0')
      const wait = Number(refused.headers['retry-after'])
      assert.ok(wait >= 1 && wait <= 60, String(wait))
      assert.equal(left?.[2], String(wait))
      assert.match(String(refused.headers['ratelimit-policy']), POLICY)
    })

    test('login: every answer says what is left of its three budgets (a failure spends, a success gives back)', async () => {
      const account = await newAccount(t.app)
      const attempt = (password: string) =>
        t.app.inject({
          method: 'POST',
          url: '/account/login/',
          payload: { username: account.username, password },
        })
      const policies = /^"login-user";q=2;w=(\d+), "login-account";q=20;w=\1, "login-ip";q=20;w=\1$/
      const failed = await attempt('wrong password here')
      assert.equal(failed.statusCode, 401)
      assert.match(String(failed.headers['ratelimit-policy']), policies)
      assert.match(
        String(failed.headers.ratelimit),
        /^"login-user";r=1;t=\d+, "login-account";r=\d+;t=\d+, "login-ip";r=\d+;t=\d+$/,
      )
      const spent = /"login-account";r=(\d+)/.exec(String(failed.headers.ratelimit))?.[1]
      const ok = await attempt(PASSWORD)
      assert.equal(ok.statusCode, 200)
      assert.match(String(ok.headers['ratelimit-policy']), policies)
      // The name-and-client budget is forgiven; the wider ones get this attempt back.
      assert.match(String(ok.headers.ratelimit), /^"login-user";r=2;t=\d+, /)
      assert.equal(/"login-account";r=(\d+)/.exec(String(ok.headers.ratelimit))?.[1], spent)
    })

    test('login: the 429 says the policy that refused, r=0 and Retry-After', async () => {
      const account = await newAccount(t.app)
      const attempt = () =>
        t.app.inject({
          method: 'POST',
          url: '/account/login/',
          payload: { username: account.username, password: 'wrong password here' },
        })
      assert.equal((await attempt()).statusCode, 401)
      assert.equal((await attempt()).statusCode, 401)
      const refused = await attempt()
      assert.equal(refused.statusCode, 429)
      const wait = Number(refused.headers['retry-after'])
      assert.ok(wait >= 1, String(wait))
      assert.match(String(refused.headers['ratelimit-policy']), /^"login-user";q=2;w=\d+$/)
      assert.equal(refused.headers.ratelimit, `"login-user";r=0;t=${wait}`)
    })
  })
}
