// GET /account/session/state: a browser on load learns whether its credentials hold a working
// session from a 200 either way, so a signed-out visit makes no failing request.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { login, openSession, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

for (const dialect of dialects()) {
  describe(`session state on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 10 })
    })
    after(() => t.close())

    const state = async (headers: Record<string, string>) => {
      const res = await t.app.inject({ url: '/account/session/state', headers })
      assert.equal(res.statusCode, 200, res.body)
      return res.json() as { success: true; signedIn: boolean; reason: string | null }
    }

    test('nothing sent, a working session, a taken-over one, a token without a session', async () => {
      assert.deepEqual(await state({}), { success: true, signedIn: false, reason: 'AUTH_TOKEN_MISSING' })
      const user = await signedIn(t.app)
      assert.deepEqual(await state(user.headers), { success: true, signedIn: true, reason: null })
      const cookies = `jsonwebtoken=${user.authToken}; X-Service-Session=${user.sessionToken}`
      assert.deepEqual(await state({ cookie: cookies }), { success: true, signedIn: true, reason: null })
      assert.deepEqual(await state({ authorization: `Bearer ${user.authToken}` }), {
        success: true,
        signedIn: false,
        reason: 'SESSION_MISSING',
      })
      await openSession(t.app, await login(t.app, user.account.username))
      assert.deepEqual(await state({ cookie: cookies }), {
        success: true,
        signedIn: false,
        reason: 'SESSION_SUPERSEDED',
      })
      assert.deepEqual(await state({ authorization: 'Bearer not-a-token' }), {
        success: true,
        signedIn: false,
        reason: 'AUTH_TOKEN_INVALID',
      })
    })
  })
}
