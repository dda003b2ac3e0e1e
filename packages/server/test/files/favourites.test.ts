// Favourites: star and unstar by every reader (owner, editor, viewer; a stranger 404), idempotent;
// `favoritedBy` names the readers who starred, the same for every reader, and loses a star when its
// share is revoked (the row goes too); the favourites listing pages the caller's stars only (own and
// shared files, in one query); the per-account cap; no event. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setAccountEmail } from '../../src/modules/admin/service.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { insertFileRow, shareFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

type Headers = Record<string, string>
interface View {
  _id: string
  favoritedBy: string[]
  role: string
  __v: number
}

for (const dialect of dialects()) {
  describe(`favourites on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, accountMaxFavourites: 3 })
      m = await team(t.app)
    })
    after(async () => t.close())

    const star = (headers: Headers, fileId: string, method: 'PUT' | 'DELETE' = 'PUT') =>
      t.app.inject({ method, url: `/file/${fileId}/favourite`, headers })
    const getFile = async (headers: Headers, fileId: string): Promise<View> => {
      const res = await t.app.inject({ method: 'GET', url: `/file/${fileId}`, headers })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().file
    }
    const favourites = (headers: Headers, query = '') =>
      t.app.inject({ method: 'GET', url: `/file/dir/favourites/${query}`, headers })

    test('owner, editor and viewer star; twice is fine; a stranger gets 404; every reader sees the same list', async () => {
      const before = await getFile(m.owner.headers, m.fileId)
      assert.deepEqual(before.favoritedBy, [])
      for (const who of [m.owner, m.editor, m.viewer]) {
        const res = await star(who.headers, m.fileId)
        assert.equal(res.statusCode, 200, res.body)
        assert.ok(res.json().file.favoritedBy.includes(who.account.email))
      }
      const once = await getFile(m.viewer.headers, m.fileId)
      const again = await star(m.viewer.headers, m.fileId)
      assert.equal(again.statusCode, 200)
      assert.equal(again.json().file.__v, once.__v, 'starring a starred file changes nothing')
      assert.equal(once.__v, before.__v + 3, 'each new star is a change of the record')
      const emails = [m.owner, m.editor, m.viewer].map((who) => who.account.email).sort()
      for (const who of [m.owner, m.editor, m.viewer]) {
        assert.deepEqual((await getFile(who.headers, m.fileId)).favoritedBy, emails)
      }
      const stranger = await star(m.stranger.headers, m.fileId)
      assert.equal(stranger.statusCode, 404)
      assert.equal(problemOf(stranger).code, 'NOT_FOUND')
      assert.equal((await star(m.stranger.headers, m.fileId, 'DELETE')).statusCode, 404)
      assert.equal((await star(m.owner.headers, 'f'.repeat(24))).statusCode, 404)
      // The directory listing carries the same record (its kept view follows the change).
      const listing = await t.app.inject({
        method: 'GET',
        url: '/file/dir/private/',
        headers: m.owner.headers,
      })
      const listed = (listing.json().files as View[]).find((file) => file._id === m.fileId)
      assert.deepEqual(listed?.favoritedBy, emails)
      // Unstar: once, then again (nothing to do).
      const off = await star(m.editor.headers, m.fileId, 'DELETE')
      assert.equal(off.statusCode, 200)
      assert.deepEqual(
        off.json().file.favoritedBy,
        emails.filter((email) => email !== m.editor.account.email),
      )
      const offAgain = await star(m.editor.headers, m.fileId, 'DELETE')
      assert.equal(offAgain.json().file.__v, off.json().file.__v)
      // Starring emits nothing: the file's events are about its content and its shares.
      const events = await t.db.kysely
        .selectFrom('events')
        .select('event')
        .where('file_id', '=', m.fileId)
        .execute()
      assert.deepEqual(events, [])
    })

    test('a revoked share takes its star with it: favoritedBy and the row', async () => {
      const file = await insertFileRow(t.app, m.owner.account.id)
      const guest = await signedIn(t.app, 'guest')
      const shared = await t.app.inject({
        method: 'POST',
        url: `/file/${file}/share`,
        headers: m.owner.headers,
        payload: { email: guest.account.email, role: 'viewer' },
      })
      assert.equal(shared.statusCode, 200, shared.body)
      assert.equal((await star(guest.headers, file)).statusCode, 200)
      assert.equal((await star(m.owner.headers, file)).statusCode, 200)
      assert.deepEqual(
        (await getFile(m.owner.headers, file)).favoritedBy,
        [guest.account.email, m.owner.account.email].sort(),
      )
      const revoked = await t.app.inject({
        method: 'DELETE',
        url: `/file/${file}/share/${encodeURIComponent(guest.account.email)}`,
        headers: m.owner.headers,
      })
      assert.equal(revoked.statusCode, 200, revoked.body)
      assert.deepEqual(revoked.json().file.favoritedBy, [m.owner.account.email])
      const rows = await t.db.kysely
        .selectFrom('file_favourites')
        .select('account_id')
        .where('file_id', '=', file)
        .execute()
      assert.deepEqual(rows, [{ account_id: m.owner.account.id }])
      assert.deepEqual((await favourites(guest.headers)).json().files, [])
      // The file_unshared event's record already shows the list without the revoked account.
      const event = await t.db.kysely
        .selectFrom('events')
        .select('data')
        .where('file_id', '=', file)
        .where('event', '=', 'file_unshared')
        .executeTakeFirstOrThrow()
      const data = (typeof event.data === 'string' ? JSON.parse(event.data) : event.data) as View
      assert.deepEqual(data.favoritedBy, [m.owner.account.email])
    })

    test('the favourites listing: only the caller’s stars, own and shared, with the role, paged; the cap', async () => {
      const me = await signedIn(t.app, 'collector')
      const own = [await insertFileRow(t.app, me.account.id), await insertFileRow(t.app, me.account.id)]
      const sharedWithMe = await insertFileRow(t.app, m.owner.account.id)
      await t.app.inject({
        method: 'POST',
        url: `/file/${sharedWithMe}/share`,
        headers: m.owner.headers,
        payload: { email: me.account.email, role: 'editor' },
      })
      const unstarred = await insertFileRow(t.app, me.account.id)
      for (const id of [...own, sharedWithMe]) assert.equal((await star(me.headers, id)).statusCode, 200)
      // Someone else's star of my file is not in my listing.
      await star(m.owner.headers, sharedWithMe)
      const all = await favourites(me.headers)
      assert.equal(all.statusCode, 200, all.body)
      const expected = [...own, sharedWithMe].sort()
      assert.deepEqual(
        (all.json().files as View[]).map((file) => file._id),
        expected,
      )
      assert.deepEqual(
        (all.json().files as View[]).map((file) => file.role),
        expected.map((id) => (id === sharedWithMe ? 'editor' : 'owner')),
      )
      assert.equal(all.json().nextCursor, null)
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
        const page = await favourites(me.headers, query)
        assert.equal(page.statusCode, 200, page.body)
        assert.ok(page.json().files.length <= 2)
        seen.push(...(page.json().files as View[]).map((file) => file._id))
        cursor = page.json().nextCursor
      } while (cursor !== null)
      assert.deepEqual(seen, expected)
      assert.equal(problemOf(await favourites(me.headers, '?cursor=%25%25')).code, 'INVALID_CURSOR')
      assert.equal((await favourites(me.headers, '?limit=0')).statusCode, 400)
      // The cap (3 here): a fourth star is refused and changes nothing; starring a starred one passes.
      const refused = await star(me.headers, unstarred)
      assert.equal(refused.statusCode, 409)
      assert.equal(problemOf(refused).code, 'FAVOURITE_LIMIT_REACHED')
      assert.match(problemOf(refused).detail, /TESSERA_ACCOUNT_MAX_FAVOURITES/)
      assert.deepEqual((await getFile(me.headers, unstarred)).favoritedBy, [])
      assert.equal((await star(me.headers, own[0] as string)).statusCode, 200)
    })

    test('a changed e-mail shows in favoritedBy (own and shared files)', async () => {
      const mover = await signedIn(t.app, 'mover')
      const own = await insertFileRow(t.app, mover.account.id)
      const theirs = await insertFileRow(t.app, m.owner.account.id)
      await shareFileRow(t.app, theirs, mover.account.id, 'viewer')
      for (const id of [own, theirs]) assert.equal((await star(mover.headers, id)).statusCode, 200)
      const email = `moved-${mover.account.email}`
      await setAccountEmail(t.app.ctx, mover.account.id, email)
      assert.deepEqual((await getFile(m.owner.headers, theirs)).favoritedBy, [email])
      assert.deepEqual((await getFile(mover.headers, own)).favoritedBy, [email])
    })

    test('deleting a file deletes its stars', async () => {
      const file = await insertFileRow(t.app, m.owner.account.id)
      await star(m.owner.headers, file)
      const deleted = await t.app.inject({ method: 'DELETE', url: `/file/${file}`, headers: m.owner.headers })
      assert.equal(deleted.statusCode, 200, deleted.body)
      const rows = await t.db.kysely
        .selectFrom('file_favourites')
        .select('account_id')
        .where('file_id', '=', file)
        .execute()
      assert.deepEqual(rows, [])
    })
  })
}
