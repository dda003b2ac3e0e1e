// The SDK's listings against a real `tessera serve`: a private directory page with its sub-folders,
// the files other accounts shared with the caller, with the caller's role, and list() across pages.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { Tessera } from '@tessera/client'
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
