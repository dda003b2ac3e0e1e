// Guests in live sessions (docs/live.md "Connecting"), every dialect: a link session joins when the
// file allows public meetings, under a cleaned name, and never sees e-mails; it is refused for
// another file or when the file does not allow guests; revoking the link closes it within 1 s.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Team } from '../support/file-rows.ts'
import { team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { joinLive, liveSocket } from '../support/live.ts'

for (const dialect of dialects()) {
  describe(`live session guests on ${dialect.name}`, () => {
    let t: TestApp
    let base: string
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, liveRecheckMs: 60_000 })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
      m = await team(t.app)
    })
    after(() => t.close())

    /** A link to the team's file and a link session of it. */
    const linkSession = async (allow: boolean) => {
      const set = await t.app.inject({
        method: 'PUT',
        url: `/file/${m.fileId}/live-meetings`,
        headers: m.owner.headers,
        payload: { allow },
      })
      assert.equal(set.statusCode, 200, set.body)
      await t.app.inject({ method: 'DELETE', url: `/file/${m.fileId}/link`, headers: m.owner.headers })
      const created = await t.app.inject({
        method: 'POST',
        url: `/file/${m.fileId}/link`,
        headers: m.owner.headers,
        payload: {},
      })
      assert.equal(created.statusCode, 200, created.body)
      const token = (created.json() as { token: string }).token
      const opened = await t.app.inject({ method: 'POST', url: '/links/open', payload: { token } })
      assert.equal(opened.statusCode, 200, opened.body)
      return (opened.json() as { linkSession: string }).linkSession
    }

    test('a guest joins under a cleaned name, sees no e-mails, and is closed within 1 s when the link is revoked', async () => {
      const jwt = await linkSession(true)
      const owner = await joinLive(base, m.fileId, m.owner.headers)
      const guest = await joinLive(
        base,
        m.fileId,
        {},
        { linkSession: jwt, name: '  Ada\u0000 \u202e  Lovelace \n' },
      )
      const me = (guest.welcome.participants as Array<Record<string, unknown>>).find(
        (p) => p.participantId === guest.you,
      )
      assert.equal(me?.name, 'Ada Lovelace')
      assert.equal(me?.guest, true)
      for (const p of guest.welcome.participants as Array<Record<string, unknown>>)
        assert.equal(p.email, undefined)
      const joined = await owner.client.waitFor((x) => x.type === 'joined')
      assert.deepEqual((joined.participant as Record<string, unknown>).name, 'Ada Lovelace')
      owner.client.send({ type: 'camera', position: [1, 2, 3], target: [0, 0, 0] })
      await guest.client.waitFor((x) => x.type === 'camera')
      const started = performance.now()
      const revoked = await t.app.inject({
        method: 'DELETE',
        url: `/file/${m.fileId}/link`,
        headers: m.owner.headers,
      })
      assert.equal(revoked.statusCode, 200, revoked.body)
      const closed = await guest.client.waitFor((x) => x.type === 'closed')
      assert.equal(closed.code, 'LINK_SESSION_ENDED')
      assert.equal((await guest.client.closed).code, 4401)
      const took = performance.now() - started
      assert.ok(took < 1000, `closed after ${took} ms`)
      owner.client.close()
    })

    test('a guest is refused when the file does not allow public meetings, or for another file', async () => {
      const jwt = await linkSession(false)
      const refused = await liveSocket(base, m.fileId)
      refused.send({ type: 'hello', linkSession: jwt, name: 'Eve' })
      assert.equal((await refused.waitFor((x) => x.type === 'closed')).code, 'LIVE_GUESTS_NOT_ALLOWED')
      assert.equal((await refused.closed).code, 4403)
      const other = await team(t.app)
      const elsewhere = await liveSocket(base, other.fileId)
      elsewhere.send({ type: 'hello', linkSession: jwt })
      assert.equal((await elsewhere.waitFor((x) => x.type === 'closed')).code, 'NOT_FOUND')
      const garbage = await liveSocket(base, m.fileId)
      garbage.send({ type: 'hello', linkSession: 'a.b.c' })
      assert.match(String((await garbage.waitFor((x) => x.type === 'closed')).code), /^LINK_SESSION_/)
      assert.equal((await garbage.closed).code, 4401)
    })
  })
}
