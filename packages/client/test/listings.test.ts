// The SDK's listings against a real `tessera serve`: a private directory page with its sub-folders,
// and the files other accounts shared with the caller, with the caller's role.
import assert from 'node:assert/strict'
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
