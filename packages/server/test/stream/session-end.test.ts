// An event stream opened with a session (a browser's cookies carry one; here the header) ends as
// soon as another sign-in takes the session over: its last frame is `session_ended` with the code,
// it delivers nothing after the takeover, and reopening it with the old session is 401. A stream
// opened with the auth token alone is not bound to any session and goes on.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { login, openSession, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { openStream } from '../support/sse.ts'

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

for (const dialect of dialects()) {
  describe(`event stream and session takeover on ${dialect.name}`, () => {
    let t: TestApp
    let base: string
    before(async () => {
      // Heartbeats far apart: the stream must end from the session's change, not from a heartbeat.
      t = await startApp(dialect, { licenses: 10, streamHeartbeatMs: 60_000 })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    })
    after(() => t.close())

    const testEvent = async (authToken: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/events/test',
        headers: bearer(authToken),
        payload: { event: 'file_uploaded' },
      })
      assert.equal(res.statusCode, 200, res.body)
      return (res.json() as { testEvent: { _id: string } }).testEvent._id
    }

    test('a takeover ends the old session’s stream at once; nothing is delivered after it', async () => {
      const first = await signedIn(t.app)
      const bound = await openStream(base, '/events/stream', first.headers)
      assert.equal(bound.status, 200, bound.text)
      const unbound = await openStream(base, '/events/stream', bearer(first.authToken))
      assert.equal(unbound.status, 200, unbound.text)
      const before = await testEvent(first.authToken)
      assert.equal((await bound.waitFor(1, (f) => f.id !== undefined))[0]?.id, before)

      // Another sign-in of the same account takes the session (its license) over.
      const started = performance.now()
      const secondToken = await login(t.app, first.account.username)
      await openSession(t.app, secondToken)
      // An event right after the takeover: the old session's stream must not carry it.
      const afterTakeover = await testEvent(secondToken)

      const [ended] = await bound.waitFor(1, (f) => f.event === 'session_ended', 5_000)
      assert.deepEqual(JSON.parse(ended?.data ?? '{}'), {
        code: 'SESSION_SUPERSEDED',
        detail: 'A newer session of this account replaced this one.',
      })
      assert.ok((ended?.at ?? Infinity) - started < 2_000, `ended after ${(ended?.at ?? 0) - started} ms`)
      const deadline = Date.now() + 5_000
      while (!bound.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
      assert.ok(bound.ended, 'the server closed the stream')
      const ids = bound.parser.events().map((f) => f.id)
      assert.deepEqual(ids, [before, undefined], 'only the event before the takeover, then the end frame')

      // The stream without a session goes on and gets the later event.
      const got = await unbound.waitFor(2, (f) => f.id !== undefined)
      assert.deepEqual(
        got.map((f) => f.id),
        [before, afterTakeover],
      )
      unbound.close()

      // Reopening with the old session is refused with the session's code.
      const again = await openStream(base, '/events/stream', first.headers)
      assert.equal(again.status, 401)
      assert.equal((JSON.parse(again.text) as { code: string }).code, 'SESSION_SUPERSEDED')
    })

    test('a keep-alive of the session does not end its stream, nor lose events', async () => {
      const user = await signedIn(t.app)
      const stream = await openStream(base, '/events/stream', user.headers)
      assert.equal(stream.status, 200, stream.text)
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        const keepAlive = await t.app.inject({
          method: 'PUT',
          url: '/account/session',
          headers: user.headers,
        })
        assert.equal(keepAlive.statusCode, 200, keepAlive.body)
        ids.push(await testEvent(user.authToken))
      }
      const got = await stream.waitFor(3, (f) => f.id !== undefined)
      assert.deepEqual(
        got.map((f) => f.id),
        ids,
      )
      assert.equal(stream.ended, false)
      stream.close()
    })
  })
}
