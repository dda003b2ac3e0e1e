// The SDK's listings against a real `tessera serve`: a private directory page with its sub-folders,
// the files other accounts shared with the caller, with the caller's role, and list() across pages.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { type Paged, Tessera } from '@tessera/client'
import { uploadPath } from '@tessera/client/node'
import { SMALL_HOUSE } from './support/receiver.ts'
import { type Instance, startTessera } from './support/server.ts'

let server: Instance
let admin: Tessera
before(async () => {
  server = await startTessera('sqlite', {}, ['--no-workers'])
  admin = await Tessera.connect({ url: server.url, ...server.admin })
})
after(async () => {
  await admin?.close().catch(() => {})
  await server?.stop()
})

test('folder() pages a directory with its sub-folders; shared() lists what others shared', async () => {
  const a = await uploadPath(admin, SMALL_HOUSE.pathname, { parent: '/plant/a' })
  await uploadPath(admin, SMALL_HOUSE.pathname, { parent: '/plant/b/deep' })
  const plant = await admin.files.folder('/plant')
  assert.deepEqual(plant.files, [])
  assert.deepEqual(
    plant.folders?.map((f) => [f.name, f.path, f.files]),
    [
      ['a', '/plant/a', 1],
      ['b', '/plant/b', 1],
    ],
  )
  const inA = await admin.files.folder('/plant/a', { limit: 10 })
  assert.deepEqual(
    inA.files.map((f) => f._id),
    [a._id],
  )

  const password = 'a long enough password 42'
  const created = await admin.api.POST('/admin/accounts', {
    body: { email: 'viewer@example.com', username: 'viewer', password },
  })
  assert.equal(created.response.status, 200)
  await admin.files.share(a._id, 'viewer@example.com', 'viewer')
  const viewer = await Tessera.connect({ url: server.url, username: 'viewer', password })
  try {
    const shared = await viewer.files.shared({ limit: 5 })
    assert.deepEqual(
      shared.files.map((f) => [f._id, f.role]),
      [[a._id, 'viewer']],
    )
    assert.equal(shared.nextCursor, null)
    assert.deepEqual((await admin.files.shared()).files, [])
  } finally {
    await viewer.close().catch(() => {})
  }
})

test('list() follows every page of a directory', async () => {
  const names = ['one', 'two', 'three']
  for (const name of names) {
    await admin.files.upload(new Blob([readFileSync(SMALL_HOUSE)]), { parent: '/paged', name: `${name}.ifc` })
  }
  // Pages of two files, whatever list() asks for: the real server's cursors, three files.
  let pages = 0
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.pathname === '/file/dir/private/') {
      pages += 1
      url.searchParams.set('limit', '2')
      return globalThis.fetch(input instanceof Request ? new Request(url, input) : url, init)
    }
    return globalThis.fetch(input, init)
  }
  const client = await Tessera.connect({ url: server.url, authToken: admin.authToken, fetch })
  try {
    const listed = await client.files.list('/paged/')
    assert.deepEqual(listed.map((f) => f.key).sort(), names.map((n) => `/paged/${n}.ifc`).sort())
    assert.equal(pages, 2)
  } finally {
    await client.close().catch(() => {})
  }
})

test('every list pages: with pages of 2, for await and page() give back every item', async () => {
  // A session of its own: the test above took over the admin's (one session per account).
  const owner = await Tessera.connect({ url: server.url, ...server.admin })
  const files = []
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    const blob = new Blob([readFileSync(SMALL_HOUSE)])
    files.push(await owner.files.upload(blob, { parent: '/every', name: `${name}.ifc` }))
  }
  const file = files[0]?._id ?? ''
  const hook = await owner.webhooks.create({
    event: 'annotation_created',
    url: 'http://127.0.0.1:9/every',
    secretToken: 'k7Qx-9vR2mWp4ZtL8bNc',
  })
  for (const n of [1, 2, 3, 4, 5]) {
    await owner.annotations.create({ file, name: `note ${n}` })
    await owner.configurations.save({ file, name: `view ${n}` })
  }
  const password = 'a long enough password 42'
  for (const username of ['pager', 'pager2', 'pager3']) {
    const body = { email: `${username}@example.com`, username, password }
    assert.equal((await owner.api.POST('/admin/accounts', { body })).response.status, 200)
  }
  for (const f of files) await owner.files.share(f._id, 'pager@example.com', 'editor')
  const pager = await Tessera.connect({ url: server.url, username: 'pager', password })

  /** Every item of `list` by `for await`, checking that no page holds more than 2. */
  async function all<T>(list: Paged<T>): Promise<T[]> {
    const items: T[] = []
    for await (const item of list) items.push(item)
    let pages = 0
    for await (const page of list.pages()) {
      pages += 1
      assert.ok(page.items.length <= 2, `a page of ${page.items.length}`)
    }
    assert.ok(pages >= Math.ceil(items.length / 2))
    return items
  }
  const ids = (items: Array<{ _id: string }>) => items.map((i) => i._id).sort()
  try {
    const limit = 2
    assert.deepEqual(ids(await all(owner.files.list('/every', { limit }))), ids(files))
    assert.deepEqual(ids(await all(pager.files.listShared({ limit }))), ids(files))
    const annotations = await all(owner.annotations.list(file, { limit }))
    assert.deepEqual(annotations.map((a) => a.name).sort(), [
      'note 1',
      'note 2',
      'note 3',
      'note 4',
      'note 5',
    ])
    const configurations = await all(owner.configurations.list(file, { limit }))
    assert.deepEqual(configurations.map((c) => c.name).sort(), [
      'view 1',
      'view 2',
      'view 3',
      'view 4',
      'view 5',
    ])
    assert.equal((await all(owner.webhooks.listDeliveries(hook.id, { limit }))).length, 5)
    assert.ok((await all(owner.webhooks.list())).some((w) => w.id === hook.id))
    const accounts = await all(owner.admin.listAccounts({ limit }))
    const every = await owner.api.GET('/admin/accounts', { params: { query: { limit: '1000' } } })
    assert.deepEqual(
      accounts.map((a) => a.id),
      every.data?.accounts.map((a) => a.id),
    )
    assert.ok(accounts.length >= 4)

    // One page with its cursor; awaiting a list still answers every item as an array.
    const first = await owner.annotations.list(file).page({ limit: 2 })
    assert.equal(first.items.length, 2)
    assert.equal(typeof first.nextCursor, 'string')
    const second = await owner.annotations.list(file).page({ limit: 2, cursor: first.nextCursor ?? '' })
    assert.deepEqual(ids(second.items), ids(annotations.slice(2, 4)))
    assert.equal((await owner.configurations.list(file, { limit })).length, 5)
  } finally {
    await pager.close().catch(() => {})
    await owner.close().catch(() => {})
  }
})

test('star() and listFavourites(); configurations.lock() and unlock()', async (t) => {
  // A session of its own, as above.
  const admin = await Tessera.connect({ url: server.url, ...server.admin })
  t.after(() => admin.close().catch(() => {}))
  const file = await uploadPath(admin, SMALL_HOUSE.pathname, { parent: '/starred' })
  const me = (await admin.api.GET('/account/me')).data?.account.email
  assert.ok(me)
  assert.deepEqual((await admin.files.star(file._id)).favoritedBy, [me])
  assert.deepEqual((await admin.files.star(file._id)).favoritedBy, [me])
  const page = await admin.files.favourites({ limit: 1 })
  assert.deepEqual(
    page.files.map((f) => [f._id, f.role]),
    [[file._id, 'owner']],
  )
  assert.deepEqual(
    (await admin.files.listFavourites()).map((f) => f._id),
    [file._id],
  )
  assert.deepEqual((await admin.files.unstar(file._id)).favoritedBy, [])
  assert.deepEqual(await admin.files.listFavourites(), [])

  const view = await admin.configurations.save({ file: file._id, name: 'Front' })
  const locked = await admin.configurations.lock(view._id)
  assert.equal(locked.lockedBy, me)
  assert.equal((await admin.configurations.unlock(view._id)).lockedBy, null)
})
