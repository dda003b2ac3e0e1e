// Listings: files shared with me (with my role), folders of the private tree, paging — on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { listDirectory } from '../../src/modules/files/repository.ts'
import { FileView } from '../../src/modules/files/schemas.ts'
import { toFileView } from '../../src/modules/files/views.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { directWritesSeen } from '../support/file-rows.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

interface Listing {
  success: true
  files: Array<{ _id: string; name: string; parent: string; role?: string; owner: string }>
  folders?: Array<{ name: string; path: string; files: number }>
  nextCursor?: string | null
}

for (const dialect of dialects()) {
  describe(`listings on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
    })
    after(() => t.close())

    const get = async (headers: Record<string, string>, url: string) => {
      const res = await t.app.inject({ method: 'GET', url, headers })
      assert.equal(res.statusCode, 200, res.body)
      return res.json() as Listing
    }

    test('folders: a directory lists its files and direct sub-folders with recursive counts', async () => {
      const me = await signedIn(t.app)
      const other = await signedIn(t.app)
      for (const [name, parent] of [
        ['root.stl', '/'],
        ['x.stl', '/a'],
        ['y.stl', '/a/b'],
        ['z.stl', '/a/b/c'],
        ['w.stl', '/a/b2'],
        ['v.stl', '/A'],
      ] as const) {
        await uploadFile(t.app, me.headers, { name, parent })
      }
      await uploadFile(t.app, other.headers, { name: 'secret.stl', parent: '/a/b' })
      const root = await get(me.headers, '/file/dir/private/?path=/')
      assert.deepEqual(
        root.files.map((f) => f.name),
        ['root.stl'],
      )
      assert.deepEqual(root.folders, [
        { name: 'A', path: '/A', files: 1 },
        { name: 'a', path: '/a', files: 4 },
      ])
      assert.equal(root.nextCursor, null)
      const a = await get(me.headers, '/file/dir/private/?path=/a')
      assert.deepEqual(
        a.files.map((f) => f.name),
        ['x.stl'],
      )
      assert.deepEqual(a.folders, [
        { name: 'b', path: '/a/b', files: 2 },
        { name: 'b2', path: '/a/b2', files: 1 },
      ])
      const b = await get(me.headers, '/file/dir/private/?path=a/b/')
      assert.deepEqual(
        b.files.map((f) => f.name),
        ['y.stl'],
        "another account's file at the same path is never listed",
      )
      assert.deepEqual(b.folders, [{ name: 'c', path: '/a/b/c', files: 1 }])
      // The specification's calls keep their exact shape.
      const spec = (
        await t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: me.headers })
      ).json()
      assert.deepEqual(Object.keys(spec).sort(), ['files', 'success'])
      const sub = (
        await t.app.inject({ method: 'GET', url: '/file/dir/private/a/b', headers: me.headers })
      ).json()
      assert.deepEqual(Object.keys(sub).sort(), ['files', 'success'])
      const bad = await t.app.inject({
        method: 'GET',
        url: '/file/dir/private/?path=/a/../b',
        headers: me.headers,
      })
      assert.equal(problemOf(bad).code, 'VALIDATION_FAILED')
    })

    test('paging: limit and cursor walk a directory in name order, bad cursors are 400', async () => {
      const me = await signedIn(t.app)
      const names = Array.from({ length: 7 }, (_, i) => `f${i}.stl`)
      for (const name of [...names].reverse()) await uploadFile(t.app, me.headers, { name, parent: '/big' })
      const seen: string[] = []
      let cursor: string | null | undefined
      let pages = 0
      do {
        const query = `limit=3${cursor ? `&cursor=${cursor}` : ''}`
        const page = await get(me.headers, `/file/dir/private/big?${query}`)
        assert.ok(page.files.length <= 3)
        seen.push(...page.files.map((f) => f.name))
        cursor = page.nextCursor
        assert.notEqual(cursor, undefined, 'a paging client always gets nextCursor')
        pages += 1
      } while (cursor)
      assert.deepEqual(seen, names)
      assert.equal(pages, 3)
      const consolePage = await get(me.headers, '/file/dir/private/?path=/big&limit=5')
      assert.equal(consolePage.files.length, 5)
      assert.ok(consolePage.folders)
      const next = await get(
        me.headers,
        `/file/dir/private/?path=/big&limit=5&cursor=${consolePage.nextCursor}`,
      )
      assert.deepEqual(
        next.files.map((f) => f.name),
        ['f5.stl', 'f6.stl'],
      )
      assert.equal(next.folders, undefined, 'folders come with the first page only')
      for (const url of [
        '/file/dir/private/big?cursor=%25%25',
        '/file/dir/private/big?limit=0',
        '/file/dir/private/big?limit=1001',
        '/file/dir/shared/?cursor=Zm9v',
      ]) {
        const res = await t.app.inject({ method: 'GET', url, headers: me.headers })
        assert.equal(res.statusCode, 400, url)
      }
    })

    test('shared with me: each file with my role, never files not shared with me', async () => {
      const owner = await signedIn(t.app)
      const me = await signedIn(t.app)
      const stranger = await signedIn(t.app)
      const viewed = await uploadFile(t.app, owner.headers, { name: 'viewed.stl' })
      const edited = await uploadFile(t.app, owner.headers, { name: 'edited.stl', parent: '/p' })
      await uploadFile(t.app, owner.headers, { name: 'private.stl' })
      await uploadFile(t.app, stranger.headers, { name: 'other.stl' })
      const share = (id: string, role: string) =>
        t.app.inject({
          method: 'POST',
          url: `/file/${id}/share`,
          headers: owner.headers,
          payload: { email: me.account.email, role },
        })
      assert.equal((await share(viewed._id, 'viewer')).statusCode, 200)
      assert.equal((await share(edited._id, 'editor')).statusCode, 200)
      const shared = await get(me.headers, '/file/dir/shared/')
      assert.deepEqual(
        shared.files.map((f) => [f.name, f.role, f.owner]),
        [
          ['viewed.stl', 'viewer', owner.account.email],
          ['edited.stl', 'editor', owner.account.email],
        ],
      )
      assert.equal(shared.nextCursor, null)
      const first = await get(me.headers, '/file/dir/shared/?limit=1')
      assert.deepEqual(
        first.files.map((f) => f.name),
        ['viewed.stl'],
      )
      const second = await get(me.headers, `/file/dir/shared/?limit=1&cursor=${first.nextCursor}`)
      assert.deepEqual(
        second.files.map((f) => f.name),
        ['edited.stl'],
      )
      assert.equal(second.nextCursor, null)
      assert.deepEqual((await get(stranger.headers, '/file/dir/shared/')).files, [])
      assert.deepEqual(
        (await get(owner.headers, '/file/dir/shared/')).files,
        [],
        'own files are not "shared with me"',
      )
      // Unshared: gone from the listing.
      await t.app.inject({
        method: 'DELETE',
        url: `/file/${viewed._id}/share/${encodeURIComponent(me.account.email)}`,
        headers: owner.headers,
      })
      assert.deepEqual(
        (await get(me.headers, '/file/dir/shared/')).files.map((f) => f.name),
        ['edited.stl'],
      )
    })

    test('a listing follows every change of a file: progress, state, a share, the owner e-mail', async () => {
      const me = await signedIn(t.app)
      const bob = await signedIn(t.app)
      const file = await uploadFile(t.app, me.headers, { name: 'live.stl', parent: '/live' })
      const view = async () => {
        const listed = (await get(me.headers, '/file/dir/private/live')) as unknown as {
          files: Array<{ progress: number; state: string; roles: unknown[]; owner: string; __v: number }>
        }
        return listed.files[0]
      }
      const before = await view()
      // Straight into the row, as a conversion (possibly in another process) writes it: no version
      // or updated_at moves with progress, so the stored view text must not be answered again.
      await t.db.kysely
        .updateTable('files')
        .set({ state: 'converting', progress: 0 })
        .where('id', '=', file._id)
        .execute()
      await directWritesSeen(t.db)
      assert.equal((await view())?.state, 'converting')
      await t.db.kysely.updateTable('files').set({ progress: 37 }).where('id', '=', file._id).execute()
      await directWritesSeen(t.db)
      assert.equal((await view())?.progress, 37)
      const share = await t.app.inject({
        method: 'POST',
        url: `/file/${file._id}/share`,
        headers: me.headers,
        payload: { email: bob.account.email, role: 'viewer' },
      })
      assert.equal(share.statusCode, 200, share.body)
      assert.deepEqual((await view())?.roles, [{ email: bob.account.email, role: 'viewer' }])
      await t.db.kysely
        .updateTable('accounts')
        .set({ email: 'renamed@example.com' })
        .where('id', '=', me.account.id)
        .execute()
      await directWritesSeen(t.db)
      assert.equal((await view())?.owner, 'renamed@example.com')
      assert.notEqual(before?.__v, undefined)
    })

    test('every listed view, first read and kept, is the view built from the whole row', async () => {
      const me = await signedIn(t.app)
      const bob = await signedIn(t.app)
      for (const name of ['a.stl', 'b.stl', 'c.stl']) {
        const file = await uploadFile(t.app, me.headers, { name, parent: '/whole' })
        await t.app.inject({
          method: 'POST',
          url: `/file/${file._id}/share`,
          headers: me.headers,
          payload: { email: bob.account.email, role: 'editor' },
        })
      }
      await t.db.kysely
        .updateTable('files')
        .set({ attributes: JSON.stringify({ project: 'P', 'ü ✓': [1, { deep: null }] }), progress: 42 })
        .where('owner_id', '=', me.account.id) // progress is in the key: no text kept so far matches
        .execute()
      await directWritesSeen(t.db)
      const expected = (await listDirectory(t.db.kysely, me.account.id, '/whole')).map((row) =>
        toFileView(row, 'owner'),
      )
      // The first listing reads every column; the second answers kept texts (PostgreSQL: offered as known).
      for (let round = 0; round < 2; round++) {
        const listed = (await get(me.headers, '/file/dir/private/whole')).files as unknown[]
        assert.deepEqual(listed, JSON.parse(JSON.stringify(expected)), `round ${round}`)
        // The listing's own serializer (view-text.ts) writes the schema's members, in its order.
        for (const file of listed)
          assert.deepEqual(Object.keys(file as object), Object.keys(FileView.properties))
        const one = await t.app.inject({
          method: 'GET',
          url: `/file/${expected[0]?._id}`,
          headers: me.headers,
        })
        assert.deepEqual(Object.keys(one.json().file), Object.keys(FileView.properties))
        assert.deepEqual(one.json().file, listed[0], `round ${round}: GET /file/:id answers the same view`)
      }
    })

    test("a listing shows the uploader's e-mail when it is not the owner, and follows it", async () => {
      const me = await signedIn(t.app)
      const bob = await signedIn(t.app)
      const file = await uploadFile(t.app, me.headers, { name: 'by-bob.stl', parent: '/uploads' })
      const view = async () => {
        const listed = (await get(me.headers, '/file/dir/private/uploads')) as unknown as {
          files: Array<{ owner: string; user: string }>
        }
        return listed.files[0]
      }
      assert.deepEqual(await view(), { ...(await view()), owner: me.account.email, user: me.account.email })
      // As a revision uploaded by someone else leaves the row (user_id is who uploaded the current one).
      await t.db.kysely
        .updateTable('files')
        .set({ user_id: bob.account.id })
        .where('id', '=', file._id)
        .execute()
      await directWritesSeen(t.db)
      assert.equal((await view())?.user, bob.account.email)
      await t.db.kysely
        .updateTable('accounts')
        .set({ email: 'bob-renamed@example.com' })
        .where('id', '=', bob.account.id)
        .execute()
      await directWritesSeen(t.db)
      assert.equal((await view())?.user, 'bob-renamed@example.com')
      assert.equal((await view())?.owner, me.account.email)
    })
  })
}
