// Uploads that cannot be converted are refused at the door: 415 UNSUPPORTED_FORMAT with the list of
// supported formats, judged by extension, by magic bytes, and for a zip by its entries' names, and
// nothing is kept (no file row, no blob, no job, no event); a refused revision leaves the current
// one as it was. Every dialect on the filesystem driver; the zip cases also on S3 (s3rver), where
// the directory is read back with ranged GETs.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { strToU8, zipSync } from 'fflate'
import { problemOf, signedIn } from '../support/api.ts'
import { postForm, uploadFile } from '../support/files.ts'
import { pmndrsGlb } from '../support/gltf.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { stlCube } from '../support/models.ts'
import { startS3 } from '../support/s3.ts'
import { storedKeys } from '../support/stored-keys.ts'

type User = Awaited<ReturnType<typeof signedIn>>

/** What an upload may leave behind: blobs, file rows, jobs, events. */
async function footprint(t: TestApp) {
  const count = async (table: 'files' | 'jobs' | 'events') =>
    (await t.db.kysely.selectFrom(table).select('id').execute()).length
  return {
    blobs: await storedKeys(t),
    files: await count('files'),
    jobs: await count('jobs'),
    events: await count('events'),
  }
}

async function assertRefused(t: TestApp, user: User, filename: string, data: Buffer, why: RegExp) {
  const before = await footprint(t)
  const res = await postForm(t.app, user.headers, [{ name: 'file', filename, data }])
  assert.equal(res.statusCode, 415, `${filename}: ${res.body}`)
  const problem = problemOf(res)
  assert.equal(problem.code, 'UNSUPPORTED_FORMAT')
  assert.match(problem.detail, why, filename)
  // The detail names what would have been accepted.
  assert.match(problem.detail, /Supported formats: \.glb, \.gltf, \.stl, .*\.ifc, or a \.zip/)
  assert.deepEqual(await footprint(t), before, `${filename} left something behind`)
}

const textZip = () => Buffer.from(zipSync({ 'README.txt': strToU8('hello'), 'docs/a.pdf': strToU8('%PDF') }))
/** A model only in places the conversion skips: macOS metadata, a folder entry. */
const metadataZip = () =>
  Buffer.from(zipSync({ '__MACOSX/._part.stl': strToU8('x'), 'models/': new Uint8Array() }))

function refusalTests(state: { t: TestApp; user: User }, zipOnly = false) {
  if (!zipOnly) {
    test('by extension: .txt and no extension → 415 with the supported formats, nothing kept', async () => {
      const { t, user } = state
      await assertRefused(
        t,
        user,
        'notes.txt',
        Buffer.from('solid but really a note\n'),
        /unsupported format: \.txt/,
      )
      await assertRefused(t, user, 'README', Buffer.from('hello'), /no file extension/)
    })

    test('by magic bytes: a .glb name with text content, a .ply without its header, a .step without ISO-10303-21', async () => {
      const { t, user } = state
      await assertRefused(
        t,
        user,
        'model.glb',
        Buffer.from('this is not a binary glTF\n'.repeat(50)),
        /not a binary glTF/,
      )
      await assertRefused(t, user, 'points.ply', Buffer.from('solid x\n'), /not a PLY file/)
      await assertRefused(t, user, 'part.step', Buffer.from('<xml/>'), /not a STEP file/)
      await assertRefused(
        t,
        user,
        'mesh.obj',
        Buffer.from([0x00, 0x01, 0x02, 0x03, 0x76, 0x20]),
        /not a text OBJ/,
      )
    })
  }

  test('zips by their entries: no model inside → 415, the staged blob removed', async () => {
    const { t, user } = state
    await assertRefused(t, user, 'docs.zip', textZip(), /the zip holds no supported model file/)
    await assertRefused(t, user, 'meta.zip', metadataZip(), /no supported model file/)
    await assertRefused(t, user, 'fake.zip', Buffer.from('not a zip at all'), /not a zip archive/)
  })

  test('a good file still works: an STL, a GLB, a zip holding a model', async () => {
    const { t, user } = state
    const before = await footprint(t)
    const uploads = [
      { name: 'cube.stl', data: stlCube('cube') },
      { name: 'suzi.glb', data: Buffer.from(await pmndrsGlb('suzi')) },
      {
        name: 'bundle.zip',
        data: Buffer.from(zipSync({ 'readme.txt': strToU8('hi'), 'in/cube.stl': stlCube('z') })),
      },
    ]
    for (const upload of uploads) {
      const file = await uploadFile(t.app, user.headers, { ...upload, parent: '/good' })
      assert.equal(file.state, 'queued')
      assert.equal(file.size, upload.data.length)
    }
    const after = await footprint(t)
    assert.equal(after.files, before.files + 3)
    assert.equal(after.jobs, before.jobs + 3)
    assert.equal(after.events, before.events + 3)
    assert.equal(after.blobs.length, before.blobs.length + 3)
  })

  test('a refused revision keeps the current revision intact (row, blob, no job, no event)', async () => {
    const { t, user } = state
    // On S3 the zip path: a good zip, then a zip without a model at the same path.
    const name = zipOnly ? 'keep.zip' : 'keep.glb'
    const good = zipOnly
      ? Buffer.from(zipSync({ 'cube.stl': stlCube('k') }))
      : Buffer.from(await pmndrsGlb('bunny'))
    const bad = zipOnly ? textZip() : Buffer.from('plain text, not glTF')
    const first = await uploadFile(t.app, user.headers, { name, data: good, parent: '/rev' })
    const row = () =>
      t.db.kysely.selectFrom('files').selectAll().where('id', '=', first._id).executeTakeFirstOrThrow()
    const kept = await row()
    const before = await footprint(t)
    const res = await postForm(t.app, user.headers, [
      { name: 'parent', value: '/rev' },
      { name: 'file', filename: name, data: bad },
    ])
    assert.equal(res.statusCode, 415, res.body)
    assert.equal(problemOf(res).code, 'UNSUPPORTED_FORMAT')
    assert.deepEqual(await row(), kept)
    assert.deepEqual(await footprint(t), before)
    const download = await t.app.inject({
      method: 'GET',
      url: `/file/${first._id}/download`,
      headers: user.headers,
    })
    assert.equal(download.statusCode, 200)
    assert.ok(download.rawPayload.equals(good))
  })
}

for (const dialect of dialects()) {
  describe(`upload refusal on ${dialect.name} (filesystem blobs)`, () => {
    const state = {} as { t: TestApp; user: User }
    before(async () => {
      state.t = await startApp(dialect)
      state.user = await signedIn(state.t.app, 'refusal')
    })
    after(() => state.t.close())
    refusalTests(state)
  })
}

describe('upload refusal of zips on S3 (ranged reads of the directory)', () => {
  const state = {} as { t: TestApp; user: User }
  let s3: Awaited<ReturnType<typeof startS3>>
  before(async () => {
    const [sqlite] = dialects()
    assert.ok(sqlite)
    s3 = await startS3()
    state.t = await startApp(sqlite, { storageUrl: s3.storageUrl })
    state.user = await signedIn(state.t.app, 'refusal-s3')
  })
  after(async () => {
    await state.t.close()
    await s3.close()
  })
  refusalTests(state, true)
})
