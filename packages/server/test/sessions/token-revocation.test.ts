// Revoking auth tokens: a password change (by the user or reset by an operator) and disabling the
// account refuse every auth token issued before it (401 TOKEN_REVOKED) for reads and for minting
// sessions, at once; the password change answers a fresh token that works.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { SignJWT } from 'jose'
import { setPassword } from '../../src/modules/accounts/index.ts'
import { setAccountDisabled } from '../../src/modules/sessions/index.ts'
import { login, PASSWORD, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testKeys } from '../support/harness.ts'
import { until } from '../support/receiver.ts'
import { openStream } from '../support/sse.ts'

const NEW_PASSWORD = 'a brand new password'

type Headers = Record<string, string>

const read = (app: FastifyInstance, headers: Headers) =>
  app.inject({ method: 'GET', url: '/file/dir/private/', headers })

const mintSession = (app: FastifyInstance, authToken: string) =>
  app.inject({ method: 'POST', url: '/account/session', headers: { authorization: `Bearer ${authToken}` } })

/** The old token is refused for a read (with the session) and for minting a session. */
async function assertRevoked(app: FastifyInstance, authToken: string, sessionToken: string) {
  const res = await read(app, { authorization: `Bearer ${authToken}`, 'x-service-session': sessionToken })
  assert.equal(res.statusCode, 401, res.body)
  assert.equal(res.json().code, 'TOKEN_REVOKED')
  const minted = await mintSession(app, authToken)
  assert.equal(minted.statusCode, 401, minted.body)
  assert.equal(minted.json().code, 'TOKEN_REVOKED')
}

for (const dialect of dialects()) {
  describe(`auth token revocation on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, streamHeartbeatMs: 100 })
    })
    after(() => t.close())

    /** Signed in, and both tokens used twice (so that any cache holds the rows). */
    async function warmSignedIn() {
      const s = await signedIn(t.app)
      for (let i = 0; i < 2; i++) assert.equal((await read(t.app, s.headers)).statusCode, 200)
      return s
    }

    test('a password change refuses the old token at once; the fresh token in the answer works', async () => {
      const s = await warmSignedIn()
      const change = await t.app.inject({
        method: 'PUT',
        url: '/account/password',
        headers: s.headers,
        payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      })
      assert.equal(change.statusCode, 200, change.body)
      const cookies = String(change.json().cookies)
      assert.match(cookies, /^jsonwebtoken=/)
      const fresh = cookies.slice('jsonwebtoken='.length)
      await assertRevoked(t.app, s.authToken, s.sessionToken)
      // The fresh token (issued in the same second as the change) works with the caller's session…
      const same = await read(t.app, {
        authorization: `Bearer ${fresh}`,
        'x-service-session': s.sessionToken,
      })
      assert.equal(same.statusCode, 200, same.body)
      // …and mints sessions; logging in with the new password works too.
      assert.equal((await mintSession(t.app, fresh)).statusCode, 200)
      await login(t.app, s.account.username, NEW_PASSWORD)
    })

    test('a cookie caller gets the fresh token as its cookie', async () => {
      const s = await warmSignedIn()
      const change = await t.app.inject({
        method: 'PUT',
        url: '/account/password',
        headers: { 'x-tessera-csrf': '1' },
        cookies: { jsonwebtoken: s.authToken, 'X-Service-Session': s.sessionToken },
        payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      })
      assert.equal(change.statusCode, 200, change.body)
      assert.equal(change.json().cookies, undefined)
      const cookie = change.cookies.find((c) => c.name === 'jsonwebtoken')
      assert.ok(cookie?.value, 'the auth cookie is set to the fresh token')
      assert.equal(cookie.httpOnly, true)
      const res = await read(t.app, {
        authorization: `Bearer ${cookie.value}`,
        'x-service-session': s.sessionToken,
      })
      assert.equal(res.statusCode, 200, res.body)
      await assertRevoked(t.app, s.authToken, s.sessionToken)
    })

    test('an operator reset (tessera accounts passwd) refuses the old token', async () => {
      const s = await warmSignedIn()
      await setPassword(t.app.ctx, s.account.id, NEW_PASSWORD)
      await assertRevoked(t.app, s.authToken, s.sessionToken)
      const fresh = await login(t.app, s.account.username, NEW_PASSWORD)
      assert.equal((await mintSession(t.app, fresh)).statusCode, 200)
    })

    test('disable then enable: the tokens from before stay refused, a new login works', async () => {
      const s = await warmSignedIn()
      // An SSO token minted before (tessera token sign signs the same way).
      const sso = await t.app.ctx.tokens.signAuthToken(s.account.id)
      await setAccountDisabled(t.app.ctx, s.account.id, true)
      const disabled = await read(t.app, s.headers)
      assert.equal(disabled.json().code, 'ACCOUNT_DISABLED')
      await setAccountDisabled(t.app.ctx, s.account.id, false)
      // Disabling ended the session (SESSION_DELETED comes first); the old tokens mint none.
      assert.equal((await read(t.app, s.headers)).json().code, 'SESSION_DELETED')
      const old = await mintSession(t.app, s.authToken)
      assert.equal(old.json().code, 'TOKEN_REVOKED')
      const minted = await mintSession(t.app, sso)
      assert.equal(minted.json().code, 'TOKEN_REVOKED')
      const fresh = await login(t.app, s.account.username)
      assert.equal((await mintSession(t.app, fresh)).statusCode, 200)
    })

    test('a token signed in the very millisecond of a disable is refused (the clock held still)', async (c) => {
      const s = await warmSignedIn()
      // Signed and disabled at one Date.now(): iat_ms cannot say which came first, so it is refused.
      c.mock.timers.enable({ apis: ['Date'], now: Date.now() })
      const sso = await t.app.ctx.tokens.signAuthToken(s.account.id)
      await setAccountDisabled(t.app.ctx, s.account.id, true)
      c.mock.timers.reset()
      await setAccountDisabled(t.app.ctx, s.account.id, false)
      assert.equal((await mintSession(t.app, sso)).json().code, 'TOKEN_REVOKED')
    })

    test('SSO tokens without iat_ms: second resolution, issued after the revocation second they work', async () => {
      const s = await warmSignedIn()
      await setPassword(t.app.ctx, s.account.id, NEW_PASSWORD)
      const keys = await testKeys()
      const sign = (iatSeconds: number) =>
        new SignJWT({ id: s.account.id })
          .setProtectedHeader({ alg: 'RS256', kid: keys.kid })
          .setIssuedAt(iatSeconds)
          .setExpirationTime(iatSeconds + 3600)
          .sign(keys.privateKey)
      const nowSeconds = Math.floor(Date.now() / 1000)
      const before = await mintSession(t.app, await sign(nowSeconds - 5))
      assert.equal(before.json().code, 'TOKEN_REVOKED')
      assert.equal((await mintSession(t.app, await sign(nowSeconds + 1))).statusCode, 200)
    })

    test('an event stream opened with the old token ends; one with the fresh token stays', async () => {
      const s = await warmSignedIn()
      const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
      const old = await openStream(base, '/events/stream', { authorization: `Bearer ${s.authToken}` })
      assert.equal(old.status, 200)
      const change = await t.app.inject({
        method: 'PUT',
        url: '/account/password',
        headers: s.headers,
        payload: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      })
      const fresh = String(change.json().cookies).slice('jsonwebtoken='.length)
      const renewed = await openStream(base, '/events/stream', { authorization: `Bearer ${fresh}` })
      assert.equal(renewed.status, 200)
      await until('the old stream to end', () => old.ended)
      assert.ok(
        old.parser.comments().some((c) => c.startsWith('auth token revoked')),
        JSON.stringify(old.parser.comments()),
      )
      await new Promise((resolve) => setTimeout(resolve, 300))
      assert.equal(renewed.ended, false, 'the fresh token keeps its stream')
      renewed.close()
    })
  })
}
