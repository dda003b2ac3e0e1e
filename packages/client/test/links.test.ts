// Share by link through the SDK against a real `tessera serve` (SQLite, and PostgreSQL when
// TESSERA_TEST_DATABASE_URL is set): the owner's `tessera.links` calls, a guest's read-only
// `TesseraLink` (reads its file, every write refused), renewal, and the end of a revoked link.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Tessera, TesseraError, TesseraLink } from '@tessera/client'
import { type Instance, startTessera, targetNames } from './support/server.ts'

for (const dialect of targetNames()) {
  describe(`share by link with @tessera/client on ${dialect}`, () => {
    let server: Instance
    let owner: Tessera

    before(async () => {
      server = await startTessera(dialect)
      owner = await Tessera.connect({ url: server.url, ...server.admin })
    })
    after(async () => {
      await owner?.close().catch(() => {})
      await server?.stop()
    })

    test('the owner creates, reads, rotates and revokes; a guest reads through TesseraLink', async () => {
      const file = await owner.files.upload(new Blob(['solid linked\nendsolid linked\n']), {
        name: 'linked.stl',
      })
      const created = await owner.links.create(file._id, { password: 'open sesame' })
      assert.ok(created.token)
      assert.equal((await owner.links.get(file._id)).id, created.link.id)
      assert.equal((await owner.files.get(file._id)).shareToken, created.link.id)
      assert.equal((await owner.files.setLiveMeetings(file._id, true)).allowLivePublicMeetings, true)
      await assert.rejects(TesseraLink.open({ url: server.url, token: created.token ?? '' }), {
        code: 'LINK_PASSWORD_REQUIRED',
      })
      const guest = await TesseraLink.open({
        url: server.url,
        token: created.token ?? '',
        password: 'open sesame',
      })
      try {
        assert.equal(guest.fileId, file._id)
        const seen = await guest.files.get(file._id)
        assert.deepEqual([seen.isLink, seen.role, seen.shareToken], [true, 'viewer', ''])
        assert.deepEqual(await guest.annotations.list(file._id), [])
        await assert.rejects(guest.annotations.create({ file: file._id, name: 'no' }), {
          code: 'LINK_READ_ONLY',
        })
        await assert.rejects(guest.files.list(), { code: 'LINK_NOT_ALLOWED' })
        assert.equal(guest.allowLivePublicMeetings, true)
        await assert.rejects(guest.files.setLiveMeetings(file._id, false), { code: 'LINK_READ_ONLY' })
        assert.equal((await owner.files.setLiveMeetings(file._id, false)).allowLivePublicMeetings, false)
        const before = guest.linkSession
        await guest.renew()
        assert.equal((await guest.files.get(file._id))._id, file._id)
        assert.ok(guest.linkSession.length > 0 && typeof before === 'string')
        const rotated = await owner.links.rotate(file._id)
        assert.notEqual(rotated.link.id, created.link.id)
        const ended = await guest.files.get(file._id).catch((error: unknown) => error)
        assert.ok(ended instanceof TesseraError && ended.code === 'LINK_SESSION_ENDED')
        await owner.links.revoke(file._id)
        await assert.rejects(owner.links.get(file._id), { code: 'LINK_NOT_FOUND' })
      } finally {
        guest.close()
      }
    })
  })
}
