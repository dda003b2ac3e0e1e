// The revision history of files: every upload to an existing path keeps the replaced revision (row
// and original blob), at most TESSERA_FILE_REVISIONS_KEPT of them; the list and download routes,
// their access rules, deletion with the file, and the start-up sweep that finishes a removal a
// crash interrupted. Every dialect, filesystem blobs (files.test.ts runs the blob drivers).
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { loadConfig } from '../../src/app/config.ts'
import { sweepPrunedRevisions } from '../../src/modules/files/index.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { type UploadedFile, uploadFile } from '../support/files.ts'
import { type DialectUnderTest, dialects, startApp, type TestApp } from '../support/harness.ts'

const KEPT = 2
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')
type User = Awaited<ReturnType<typeof signedIn>>

interface Revision {
  __v: number
  revisionDate: string
  size: number
  sha256: string
  name: string
  uploadedBy: string
  current: boolean
}

function get(t: TestApp, user: User, url: string) {
  return t.app.inject({ method: 'GET', url, headers: user.headers })
}

async function revisionsOf(t: TestApp, user: User, fileId: string): Promise<Revision[]> {
  const res = await get(t, user, `/file/${fileId}/revisions`)
  assert.equal(res.statusCode, 200, res.body)
  const body = res.json() as { success: boolean; revisions: Revision[] }
  assert.equal(body.success, true)
  return body.revisions
}

async function blobKeyOf(t: TestApp, fileId: string): Promise<string> {
  const row = await t.db.kysely
    .selectFrom('files')
    .select('blob_key')
    .where('id', '=', fileId)
    .executeTakeFirst()
  assert.ok(row)
  return row.blob_key
}

function revisionRows(t: TestApp, fileId: string) {
  return t.db.kysely
    .selectFrom('file_revisions')
    .selectAll()
    .where('file_id', '=', fileId)
    .orderBy('version')
    .execute()
}

/** Uploads `datas` in turn to one path: the revisions of one file, with each one's blob key. */
async function uploadRevisions(t: TestApp, user: User, name: string, datas: Buffer[]) {
  const files: UploadedFile[] = []
  const blobKeys: string[] = []
  for (const data of datas) {
    const file = await uploadFile(t.app, user.headers, { name, data })
    files.push(file)
    blobKeys.push(await blobKeyOf(t, file._id))
  }
  return { files, blobKeys }
}

function revisionTests(state: { t: TestApp }) {
  test('a new revision keeps the old one: both listed with their fields, the old bytes downloadable', async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const datas = [randomBytes(1500), randomBytes(2500)]
    const { files, blobKeys } = await uploadRevisions(t, owner, 'Pièce – ü.stl', datas)
    const [first, second] = files as [UploadedFile, UploadedFile]
    assert.equal(second._id, first._id)

    assert.deepEqual(await revisionsOf(t, owner, first._id), [
      {
        __v: second.__v,
        revisionNumber: 2,
        revisionDate: second.revisionDate,
        size: 2500,
        sha256: sha256(datas[1] as Buffer),
        name: 'Pièce – ü.stl',
        uploadedBy: owner.account.email,
        current: true,
      },
      {
        __v: first.__v,
        revisionNumber: 1,
        revisionDate: first.revisionDate,
        size: 1500,
        sha256: sha256(datas[0] as Buffer),
        name: 'Pièce – ü.stl',
        uploadedBy: owner.account.email,
        current: false,
      },
    ])
    // The replaced original is kept, not discarded.
    assert.equal(await t.app.ctx.blobs.size(blobKeys[0] ?? ''), 1500)

    const old = await get(t, owner, `/file/${first._id}/revisions/${first.__v}/download`)
    assert.equal(old.statusCode, 200, old.body)
    assert.ok(old.rawPayload.equals(datas[0] as Buffer))
    const current = await get(t, owner, `/file/${first._id}/download`)
    for (const header of ['content-type', 'content-disposition'] as const) {
      assert.equal(old.headers[header], current.headers[header], header)
    }
    assert.equal(old.headers['content-length'], '1500')
    assert.equal(old.headers.etag, `"${sha256(datas[0] as Buffer)}"`)
    const latest = await get(t, owner, `/file/${first._id}/revisions/${second.__v}/download`)
    assert.ok(latest.rawPayload.equals(datas[1] as Buffer))

    const unknown = await get(t, owner, `/file/${first._id}/revisions/${second.__v + 5}/download`)
    assert.equal(unknown.statusCode, 404)
    assert.equal(problemOf(unknown).code, 'NOT_FOUND')
    assert.equal((await get(t, owner, `/file/${first._id}/revisions/x1/download`)).statusCode, 400)
  })

  test(`past ${KEPT} kept revisions the oldest row goes and its blob with it`, async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const datas = [randomBytes(100), randomBytes(200), randomBytes(300), randomBytes(400)]
    const { files, blobKeys } = await uploadRevisions(t, owner, 'limit.stl', datas)
    const fileId = files[0]?._id ?? ''

    const rows = await revisionRows(t, fileId)
    assert.deepEqual(
      rows.map((row) => [row.version, row.blob_key, row.pruned_at]),
      [
        [1, blobKeys[1], null],
        [2, blobKeys[2], null],
      ],
    )
    assert.equal(await t.app.ctx.blobs.size(blobKeys[0] ?? ''), null, 'the dropped revision’s blob')
    for (const [i, size] of [
      [1, 200],
      [2, 300],
      [3, 400],
    ] as const) {
      assert.equal(await t.app.ctx.blobs.size(blobKeys[i] ?? ''), size)
    }
    const listed = await revisionsOf(t, owner, fileId)
    assert.deepEqual(
      listed.map((revision) => [revision.__v, revision.size, revision.current]),
      [
        [3, 400, true],
        [2, 300, false],
        [1, 200, false],
      ],
    )
    const dropped = await get(t, owner, `/file/${fileId}/revisions/0/download`)
    assert.equal(problemOf(dropped).code, 'NOT_FOUND')
  })

  test('deleting a file removes its revision rows and their blobs', async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const { files, blobKeys } = await uploadRevisions(t, owner, 'gone.stl', [
      randomBytes(10),
      randomBytes(20),
      randomBytes(30),
    ])
    const fileId = files[0]?._id ?? ''
    assert.equal((await revisionRows(t, fileId)).length, 2)
    const res = await t.app.inject({ method: 'DELETE', url: `/file/${fileId}`, headers: owner.headers })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(await revisionRows(t, fileId), [])
    for (const key of blobKeys) assert.equal(await t.app.ctx.blobs.size(key), null, key)
    assert.equal((await get(t, owner, `/file/${fileId}/revisions`)).statusCode, 404)
  })

  test('another account gets 404 on both routes; a shared viewer lists and downloads', async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const viewer = await signedIn(t.app)
    const stranger = await signedIn(t.app)
    const datas = [randomBytes(64), randomBytes(65)]
    const { files } = await uploadRevisions(t, owner, 'shared.stl', datas)
    const fileId = files[0]?._id ?? ''
    const shared = await t.app.inject({
      method: 'POST',
      url: `/file/${fileId}/share`,
      headers: owner.headers,
      payload: { email: viewer.account.email, role: 'viewer' },
    })
    assert.equal(shared.statusCode, 200, shared.body)

    for (const url of [`/file/${fileId}/revisions`, `/file/${fileId}/revisions/0/download`]) {
      const res = await get(t, stranger, url)
      assert.equal(res.statusCode, 404, url)
      assert.equal(problemOf(res).code, 'NOT_FOUND')
    }
    const listed = await revisionsOf(t, viewer, fileId)
    assert.deepEqual(listed, await revisionsOf(t, owner, fileId))
    assert.deepEqual(
      listed.map((revision) => [revision.__v, revision.uploadedBy]),
      // Sharing counts as an update of the record: the current revision's __v is 2 now.
      [
        [2, owner.account.email],
        [0, owner.account.email],
      ],
    )
    const old = await get(t, viewer, `/file/${fileId}/revisions/0/download`)
    assert.equal(old.statusCode, 200, old.body)
    assert.ok(old.rawPayload.equals(datas[0] as Buffer))
  })

  test('a removal a crash interrupted (a pruned row left) is unlisted, then finished by the sweep', async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const { files, blobKeys } = await uploadRevisions(t, owner, 'crash.stl', [
      randomBytes(11),
      randomBytes(12),
    ])
    const fileId = files[0]?._id ?? ''
    // What a crash between commit and removal leaves: the row marked pruned, the blob still there.
    await t.db.kysely
      .updateTable('file_revisions')
      .set({ pruned_at: Date.now() })
      .where('file_id', '=', fileId)
      .execute()
    assert.deepEqual(
      (await revisionsOf(t, owner, fileId)).map((revision) => revision.__v),
      [1],
    )
    assert.equal((await get(t, owner, `/file/${fileId}/revisions/0/download`)).statusCode, 404)
    assert.ok((await sweepPrunedRevisions(t.app.ctx)) >= 1)
    assert.deepEqual(await revisionRows(t, fileId), [])
    assert.equal(await t.app.ctx.blobs.size(blobKeys[0] ?? ''), null)
    assert.equal(await t.app.ctx.blobs.size(blobKeys[1] ?? ''), 12, 'the current revision is untouched')
  })
}

for (const dialect of dialects()) {
  describe(`file revisions on ${dialect.name}`, () => {
    const state = { t: undefined as unknown as TestApp }
    before(async () => {
      state.t = await startApp(dialect as DialectUnderTest, { licenses: 1000, fileRevisionsKept: KEPT })
    })
    after(async () => {
      await state.t.close()
    })
    revisionTests(state)
  })

  test(`with 0 revisions kept on ${dialect.name}, the replaced blob and row go at once`, async () => {
    const t = await startApp(dialect as DialectUnderTest, { licenses: 100, fileRevisionsKept: 0 })
    try {
      const owner = await signedIn(t.app)
      const { files, blobKeys } = await uploadRevisions(t, owner, 'none.stl', [
        randomBytes(5),
        randomBytes(6),
      ])
      const fileId = files[0]?._id ?? ''
      assert.deepEqual(await revisionRows(t, fileId), [])
      assert.equal(await t.app.ctx.blobs.size(blobKeys[0] ?? ''), null)
      assert.deepEqual(
        (await revisionsOf(t, owner, fileId)).map((revision) => [revision.__v, revision.current]),
        [[1, true]],
      )
    } finally {
      await t.close()
    }
  })
}

test('TESSERA_FILE_REVISIONS_KEPT: default 10, a whole number 0..1000', () => {
  assert.equal(loadConfig({}).fileRevisionsKept, 10)
  assert.equal(loadConfig({ TESSERA_FILE_REVISIONS_KEPT: '0' }).fileRevisionsKept, 0)
  for (const bad of ['-1', 'ten', '1001', '2.5']) {
    assert.throws(() => loadConfig({ TESSERA_FILE_REVISIONS_KEPT: bad }), /TESSERA_FILE_REVISIONS_KEPT/, bad)
  }
})
