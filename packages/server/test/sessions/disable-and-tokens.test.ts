// Sessions and tokens: disabling an account ends its session and frees its license at once; an
// auth token without exp may not date its iat into the future; keep-alive renews the cookie.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SignJWT } from 'jose'
import { licenseUsage, setAccountDisabled } from '../../src/modules/sessions/index.ts'
import { newAccount, problemOf, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testKeys } from '../support/harness.ts'

for (const dialect of dialects()) {
  describe(`session hardening on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { sessionTtlMs: 3_600_000 })
    })
    after(() => t.close())

    test('disabling an account ends its session and frees its license at once', async () => {
      const s = await signedIn(t.app)
      const listing = () => t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: s.headers })
      assert.equal((await listing()).statusCode, 200)
      const before = (await licenseUsage(t.app.ctx)).inUse
      await setAccountDisabled(t.app.ctx, s.account.id, true)
      const refused = await listing()
      assert.equal(refused.statusCode, 401)
      assert.equal(problemOf(refused).code, 'ACCOUNT_DISABLED')
      assert.equal((await licenseUsage(t.app.ctx)).inUse, before - 1)
      // Enabled again, the old session stays ended: a new one must be opened.
      await setAccountDisabled(t.app.ctx, s.account.id, false)
      const stale = await listing()
      assert.equal(stale.statusCode, 401)
      assert.equal(problemOf(stale).code, 'SESSION_DELETED')
    })

    test('an auth token without exp whose iat lies in the future is refused', async () => {
      const account = await newAccount(t.app)
      const keys = await testKeys()
      const withIat = (iat: number) =>
        new SignJWT({ id: account.id, iat }).setProtectedHeader({ alg: 'RS256' }).sign(keys.privateKey)
      const openSession = async (iat: number) =>
        t.app.inject({
          method: 'POST',
          url: '/account/session',
          headers: { authorization: `Bearer ${await withIat(iat)}` },
        })
      const now = Math.floor(Date.now() / 1000)
      const future = await openSession(now + 3600)
      assert.equal(future.statusCode, 401, future.body)
      assert.equal(problemOf(future).code, 'AUTH_TOKEN_INVALID')
      const farFuture = await openSession(now + 10 * 365 * 86_400)
      assert.equal(farFuture.statusCode, 401)
      // Within the clock skew it is accepted.
      assert.equal((await openSession(now + 30)).statusCode, 200)
    })

    test('keep-alive renews the session cookie when the session came as a cookie', async () => {
      const s = await signedIn(t.app)
      const byCookie = await t.app.inject({
        method: 'PUT',
        url: '/account/session',
        // Cookie writes carry CSRF proof (docs/api.md, "Browsers").
        headers: {
          cookie: `jsonwebtoken=${s.authToken}; X-Service-Session=${s.sessionToken}`,
          'x-tessera-csrf': '1',
        },
      })
      assert.equal(byCookie.statusCode, 200, byCookie.body)
      const setCookie = String(byCookie.headers['set-cookie'] ?? '')
      assert.match(setCookie, new RegExp(`^X-Service-Session=${s.sessionToken};`))
      const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)?.[1])
      assert.ok(maxAge > 3590 && maxAge <= 3600, setCookie)
      assert.match(setCookie, /HttpOnly/)
      assert.match(setCookie, /SameSite=Lax/)
      assert.match(setCookie, /Path=\//)
      // After a scheduled deletion, the cookie lives no longer than the session.
      const cookie = `jsonwebtoken=${s.authToken}; X-Service-Session=${s.sessionToken}`
      const csrf = { 'x-tessera-csrf': '1' }
      await t.app.inject({ method: 'DELETE', url: '/account/session', headers: { cookie, ...csrf } })
      const afterDelete = await t.app.inject({
        method: 'PUT',
        url: '/account/session',
        headers: { cookie, ...csrf },
      })
      const shortened = Number(/Max-Age=(\d+)/.exec(String(afterDelete.headers['set-cookie']))?.[1])
      assert.ok(shortened <= t.config.sessionDeleteDelayMs / 1000, String(afterDelete.headers['set-cookie']))
      // Tokens sent as headers get no cookie.
      const byHeaders = await t.app.inject({ method: 'PUT', url: '/account/session', headers: s.headers })
      assert.equal(byHeaders.statusCode, 200)
      assert.equal(byHeaders.headers['set-cookie'], undefined)
    })
  })
}
