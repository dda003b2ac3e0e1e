// Sharing and revoking are events (`file_shared`, `file_unshared`, the record after the change): the
// owner's and the grantee's event streams receive them, the revoked grantee's too (the file leaves
// its "Shared with me"), a stranger's never.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { openStream } from '../support/sse.ts'

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

for (const dialect of dialects()) {
  describe(`share events on ${dialect.name}`, () => {
    let t: TestApp
    let base: string
    before(async () => {
      t = await startApp(dialect, { licenses: 10 })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    })
    after(() => t.close())

    test('share and revoke reach the owner and the grantee, not a stranger', async () => {
      const owner = await signedIn(t.app)
      const grantee = await signedIn(t.app)
      const stranger = await signedIn(t.app)
      const file = await uploadFile(t.app, owner.headers, { name: 'shared.stl' })
      const only = '?events=file_shared,file_unshared'
      const streams = await Promise.all(
        [owner, grantee, stranger].map((who) =>
          openStream(base, `/events/stream${only}`, bearer(who.authToken)),
        ),
      )
      for (const s of streams) assert.equal(s.status, 200, s.text)
      const path = `/file/${file._id}/share`
      const share = await t.app.inject({
        method: 'POST',
        url: path,
        headers: owner.headers,
        payload: { email: grantee.account.email, role: 'editor' },
      })
      assert.equal(share.statusCode, 200, share.body)
      const revoke = await t.app.inject({
        method: 'DELETE',
        url: `${path}/${encodeURIComponent(grantee.account.email)}`,
        headers: owner.headers,
      })
      assert.equal(revoke.statusCode, 200, revoke.body)

      const [ownerStream, granteeStream, strangerStream] = streams
      for (const s of [ownerStream, granteeStream]) {
        const frames = (await s?.waitFor(2)) ?? []
        assert.deepEqual(
          frames.map((f) => f.event),
          ['file_shared', 'file_unshared'],
        )
        const [shared, unshared] = frames.map(
          (f) => JSON.parse(f.data ?? '{}') as { file: string; data: { _id: string; roles: unknown[] } },
        )
        assert.equal(shared?.file, file._id)
        assert.deepEqual(shared?.data.roles, [{ email: grantee.account.email, role: 'editor' }])
        assert.deepEqual(unshared?.data.roles, [])
      }
      // Another event of the stranger's own afterwards arrives alone: nothing of the share came first.
      await t.app.inject({
        method: 'POST',
        url: '/events/test',
        headers: bearer(stranger.authToken),
        payload: { event: 'file_shared' },
      })
      const [first] = (await strangerStream?.waitFor(1)) ?? []
      assert.notEqual(JSON.parse(first?.data ?? '{}').file, file._id)
      for (const s of streams) s.close()
    })
  })
}
