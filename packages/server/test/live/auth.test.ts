// Who may stay in a live session (docs/live.md "Connecting"), every dialect: credentials in the
// first message, and a connection closed within a second once the account can no longer read the
// file (share removed), the account is disabled, or its session is taken over by a newer sign-in.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setAccountDisabled } from '../../src/modules/sessions/index.ts'
import { login, openSession, signedIn } from '../support/api.ts'
import { insertFileRow, shareFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { joinLive, type LiveClient, liveSocket } from '../support/live.ts'

/** The `closed` message and close frame, and how long after `since` they came. */
async function closedWithin(client: LiveClient, since: number) {
  const closed = await client.waitFor((x) => x.type === 'closed', 5000)
  const frame = await client.closed
  return { code: closed.code, frame: frame.code, ms: performance.now() - since }
}

for (const dialect of dialects()) {
  describe(`live session auth on ${dialect.name}`, () => {
    let t: TestApp
    let base: string
    let m: Team
    before(async () => {
      // Re-checks by time far apart: a close must come from the change itself.
      t = await startApp(dialect, { licenses: 1000, liveRecheckMs: 60_000 })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
      m = await team(t.app)
    })
    after(() => t.close())

    test('an auth token without a session is refused before the upgrade (401 SESSION_MISSING)', async () => {
      await assert.rejects(
        liveSocket(base, m.fileId, { authorization: `Bearer ${m.viewer.authToken}` }),
        (err: { status?: number; body?: string }) =>
          err.status === 401 && /SESSION_MISSING/.test(err.body ?? ''),
      )
      const tokenOnly = await liveSocket(base, m.fileId)
      tokenOnly.send({ type: 'hello', token: m.viewer.authToken })
      assert.equal((await tokenOnly.waitFor((x) => x.type === 'closed')).code, 'SESSION_MISSING')
      assert.equal((await tokenOnly.closed).code, 4401)
    })

    test('credentials in hello (no headers on the upgrade); bad ones close with 4401', async () => {
      const ok = await joinLive(
        base,
        m.fileId,
        {},
        { token: m.viewer.authToken, session: m.viewer.sessionToken },
      )
      assert.equal((ok.welcome.participants as unknown[]).length >= 1, true)
      ok.client.close()
      const bad = await liveSocket(base, m.fileId)
      bad.send({ type: 'hello', token: 'nope', session: m.viewer.sessionToken })
      assert.match(String((await bad.waitFor((x) => x.type === 'closed')).code), /^AUTH_TOKEN_/)
      assert.equal((await bad.closed).code, 4401)
      const stranger = await liveSocket(base, m.fileId)
      stranger.send({ type: 'hello', token: m.stranger.authToken, session: m.stranger.sessionToken })
      assert.equal((await stranger.waitFor((x) => x.type === 'closed')).code, 'NOT_FOUND')
      assert.equal((await stranger.closed).code, 4404)
    })

    test('removing the share closes the viewer within 1 s (NOT_FOUND, 4404); the owner stays', async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      const viewer = await signedIn(t.app, 'sharee')
      await shareFileRow(t.app, fileId, viewer.account.id, 'viewer')
      const owner = await joinLive(base, fileId, m.owner.headers)
      const v = await joinLive(base, fileId, viewer.headers)
      const started = performance.now()
      const res = await t.app.inject({
        method: 'DELETE',
        url: `/file/${fileId}/share/${encodeURIComponent(viewer.account.email)}`,
        headers: m.owner.headers,
      })
      assert.equal(res.statusCode, 200, res.body)
      const closed = await closedWithin(v.client, started)
      assert.deepEqual([closed.code, closed.frame], ['NOT_FOUND', 4404])
      assert.ok(closed.ms < 1000, `closed after ${closed.ms} ms`)
      const left = await owner.client.waitFor((x) => x.type === 'left')
      assert.deepEqual(left, { type: 'left', participantId: v.you, reason: 'closed' })
      owner.client.send({ type: 'ping' })
      await owner.client.waitFor((x) => x.type === 'pong')
      owner.client.close()
    })

    test('disabling the account closes within 1 s (ACCOUNT_DISABLED, 4401)', async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      const member = await signedIn(t.app, 'disabled')
      await shareFileRow(t.app, fileId, member.account.id, 'editor')
      const live = await joinLive(base, fileId, member.headers)
      const started = performance.now()
      await setAccountDisabled(t.app.ctx, member.account.id, true)
      const closed = await closedWithin(live.client, started)
      assert.equal(closed.frame, 4401)
      assert.ok(
        ['ACCOUNT_DISABLED', 'SESSION_DELETED', 'TOKEN_REVOKED'].includes(String(closed.code)),
        String(closed.code),
      )
      assert.ok(closed.ms < 1000, `closed after ${closed.ms} ms`)
    })

    test('a newer sign-in of the account closes the old session within 1 s (SESSION_SUPERSEDED, 4401)', async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      const member = await signedIn(t.app, 'superseded')
      await shareFileRow(t.app, fileId, member.account.id, 'viewer')
      const live = await joinLive(base, fileId, member.headers)
      const started = performance.now()
      const token = await login(t.app, member.account.username)
      await openSession(t.app, token)
      const closed = await closedWithin(live.client, started)
      assert.deepEqual([closed.code, closed.frame], ['SESSION_SUPERSEDED', 4401])
      assert.ok(closed.ms < 1000, `closed after ${closed.ms} ms`)
    })
  })
}
