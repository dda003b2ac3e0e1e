// Files end to end: uploads (streamed, measured, limited, named safely), revisions, downloads with
// Range/ETag, deletion, sharing and its role matrix, and the file_uploaded webhook fan-out. Every
// dialect; the filesystem blob driver everywhere and the S3 driver (real s3rver) for the
// upload/download/revision/delete path.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { buffer } from 'node:stream/consumers'
import { after, before, describe, test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { Config } from '../../src/platform/config.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { type FormPart, postForm, type UploadedFile, uploadFile } from '../support/files.ts'
import { type DialectUnderTest, dialects, startApp, type TestApp } from '../support/harness.ts'
import { Receiver, register, until } from '../support/receiver.ts'
import { startS3 } from '../support/s3.ts'
import { storedKeys } from '../support/stored-keys.ts'

const LIMIT = 64 * 1024
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const SPEC_FIELDS = [
  '_id',
  'parent',
  'key',
  'name',
  'owner',
  'user',
  'roles',
  'isLink',
  'shareToken',
  'size',
  'created',
  'updated',
  'revisionDate',
  'attributes',
  'allowLivePublicMeetings',
  'state',
  'error',
  'sceneTreeNames',
  'sceneTreeRoots',
  'favoritedBy',
  'type',
  'bucket',
  '__v',
]

/** Events carry the spec's record: the API's answer without its extra fields. */
const specRecord = ({
  progress: _progress,
  thumbnailUrl: _thumbnailUrl,
  role: _role,
  capabilities: _capabilities,
  revisionNumber: _revisionNumber,
  ...record
}: UploadedFile) => record
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')
type User = Awaited<ReturnType<typeof signedIn>>

interface StorageUnderTest {
  name: 'filesystem' | 's3'
  start(): Promise<{ overrides: Partial<Config>; close(): Promise<void> }>
}

const STORAGES: StorageUnderTest[] = [
  { name: 'filesystem', start: async () => ({ overrides: {}, close: async () => {} }) },
  {
    name: 's3',
    async start() {
      const s3 = await startS3()
      return { overrides: { storageUrl: s3.storageUrl }, close: () => s3.close() }
    },
  },
]

async function fileRow(t: TestApp, id: string) {
  return t.db.kysely.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()
}

async function jobsOf(t: TestApp, fileId: string) {
  return t.db.kysely.selectFrom('jobs').selectAll().where('file_id', '=', fileId).orderBy('id').execute()
}

async function filesOf(t: TestApp, accountId: string) {
  return t.db.kysely.selectFrom('files').selectAll().where('owner_id', '=', accountId).execute()
}

function get(t: TestApp, user: User, url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, headers: { ...user.headers, ...headers } })
}

/** The tests every blob driver must pass. */
function storagePathTests(state: { t: TestApp }) {
  test('upload answers a queued record with every spec field and type; GET, listing, job and blob agree', async () => {
    const { t } = state
    const user = await signedIn(t.app)
    const data = randomBytes(5000)
    const before = Date.now()
    const file = await uploadFile(t.app, user.headers, { name: 'part.stl', data, parent: 'models/v1/' })
    // The API's view: every spec field, plus the conversion's progress and the caller's rights.
    assert.deepEqual(
      Object.keys(file).sort(),
      [...SPEC_FIELDS, 'progress', 'thumbnailUrl', 'role', 'capabilities', 'revisionNumber'].sort(),
    )
    assert.equal(file.role, 'owner')
    assert.equal(file.progress, 0)
    assert.equal(file.thumbnailUrl, null)
    assert.match(file._id, /^[0-9a-f]{24}$/)
    assert.equal(file.parent, '/models/v1')
    assert.equal(file.key, '/models/v1/part.stl')
    assert.equal(file.name, 'part.stl')
    assert.equal(file.owner, user.account.email)
    assert.equal(file.user, user.account.email)
    assert.deepEqual(file.roles, [])
    assert.equal(file.isLink, false)
    assert.equal(file.shareToken, '')
    assert.ok(Number.isInteger(file.size))
    assert.equal(file.size, data.length)
    for (const field of ['created', 'updated', 'revisionDate'] as const) {
      assert.match(String(file[field]), ISO_UTC, field)
      const ms = Date.parse(String(file[field]))
      assert.ok(ms >= before - 1 && ms <= Date.now(), field)
    }
    assert.equal(file.created, file.revisionDate)
    assert.deepEqual(file.attributes, {})
    assert.equal(file.allowLivePublicMeetings, false)
    assert.equal(file.state, 'queued')
    assert.equal(file.error, '')
    assert.deepEqual(file.sceneTreeNames, [])
    assert.deepEqual(file.sceneTreeRoots, [])
    assert.deepEqual(file.favoritedBy, [])
    assert.equal(file.type, 'file')
    assert.equal(file.bucket, t.app.ctx.blobs.bucket)
    assert.equal(file.__v, 0)

    const one = await get(t, user, `/file/${file._id}`)
    assert.equal(one.statusCode, 200)
    assert.deepEqual(one.json(), { success: true, file })
    const listing = await get(t, user, '/file/dir/private/models/v1')
    assert.deepEqual(listing.json(), { success: true, files: [file] })
    assert.deepEqual((await get(t, user, '/file/dir/private/')).json().files, [])

    const row = await fileRow(t, file._id)
    assert.equal(row?.sha256, sha256(data))
    assert.equal(await t.app.ctx.blobs.size(row?.blob_key ?? ''), data.length)
    const jobs = await jobsOf(t, file._id)
    assert.equal(jobs.length, 1)
    assert.equal(jobs[0]?.kind, 'convert')
    assert.equal(jobs[0]?.state, 'queued')
    assert.equal(jobs[0]?.file_revision, 0)
    assert.equal(jobs[0]?.attempts, 0)
    assert.equal(jobs[0]?.lease_until, null)
  })

  test('download: the original bytes, ETag = sha256, If-None-Match 304, Range 206, 416 past the end', async () => {
    const { t } = state
    const user = await signedIn(t.app)
    const data = randomBytes(20_000)
    const file = await uploadFile(t.app, user.headers, { name: 'Modèle – ü.stl', data })
    const url = `/file/${file._id}/download`
    const etag = `"${sha256(data)}"`

    const full = await get(t, user, url)
    assert.equal(full.statusCode, 200)
    assert.ok(full.rawPayload.equals(data))
    assert.equal(full.headers.etag, etag)
    assert.equal(full.headers['content-length'], String(data.length))
    assert.equal(full.headers['accept-ranges'], 'bytes')
    assert.equal(full.headers['content-type'], 'application/octet-stream')
    assert.equal(
      full.headers['content-disposition'],
      `attachment; filename="Mod_le _ _.stl"; filename*=UTF-8''${encodeURIComponent('Modèle – ü.stl')}`,
    )

    for (const ifNoneMatch of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const cached = await get(t, user, url, { 'if-none-match': ifNoneMatch })
      assert.equal(cached.statusCode, 304, ifNoneMatch)
      assert.equal(cached.rawPayload.length, 0)
      assert.equal(cached.headers.etag, etag)
    }
    assert.equal((await get(t, user, url, { 'if-none-match': '"other"' })).statusCode, 200)

    const cases: Array<[string, number, number]> = [
      ['bytes=0-0', 0, 0],
      ['bytes=100-1099', 100, 1099],
      ['bytes=19990-', 19990, 19999],
      ['bytes=-10', 19990, 19999],
      ['bytes=19000-99999', 19000, 19999],
    ]
    for (const [range, start, end] of cases) {
      const part = await get(t, user, url, { range })
      assert.equal(part.statusCode, 206, range)
      assert.equal(part.headers['content-range'], `bytes ${start}-${end}/${data.length}`)
      assert.equal(part.headers['content-length'], String(end - start + 1))
      assert.ok(part.rawPayload.equals(data.subarray(start, end + 1)), range)
    }
    const beyond = await get(t, user, url, { range: 'bytes=20000-' })
    assert.equal(beyond.statusCode, 416)
    assert.equal(beyond.headers['content-range'], `bytes */${data.length}`)
    assert.equal(problemOf(beyond).code, 'RANGE_NOT_SATISFIABLE')
    // Several ranges, another unit, or an If-Range naming another version: the whole body.
    const wholeCases: Array<Record<string, string>> = [
      { range: 'bytes=0-1,5-6' },
      { range: 'items=0-1' },
      { range: 'bytes=0-1', 'if-range': '"older"' },
    ]
    for (const headers of wholeCases) {
      const whole = await get(t, user, url, headers)
      assert.equal(whole.statusCode, 200, JSON.stringify(headers))
      assert.ok(whole.rawPayload.equals(data))
    }
    assert.equal((await get(t, user, url, { range: 'bytes=0-1', 'if-range': etag })).statusCode, 206)
  })

  test('uploading to an existing path makes a new revision; the old blob stays in its history', async () => {
    const { t } = state
    const user = await signedIn(t.app)
    const first = await uploadFile(t.app, user.headers, { name: 'rev.stl', data: Buffer.from('one') })
    const firstRow = await fileRow(t, first._id)
    const data = randomBytes(3000)
    const second = await uploadFile(t.app, user.headers, { name: 'rev.stl', data, parent: '/' })
    assert.equal(second._id, first._id)
    assert.equal(second.__v, first.__v + 1)
    assert.equal(second.created, first.created)
    assert.ok(Date.parse(second.revisionDate) > Date.parse(first.revisionDate))
    assert.equal(second.updated, second.revisionDate)
    assert.equal(second.state, 'queued')
    assert.equal(second.size, 3000)
    const secondRow = await fileRow(t, first._id)
    assert.notEqual(secondRow?.blob_key, firstRow?.blob_key)
    // Kept as the earlier revision (TESSERA_FILE_REVISIONS_KEPT, default 10; file-revisions.test.ts).
    assert.equal(await t.app.ctx.blobs.size(firstRow?.blob_key ?? ''), 3)
    assert.equal(await t.app.ctx.blobs.size(secondRow?.blob_key ?? ''), 3000)
    assert.ok((await get(t, user, `/file/${first._id}/download`)).rawPayload.equals(data))
    const old = await get(t, user, `/file/${first._id}/revisions/${first.__v}/download`)
    assert.equal(old.body, 'one')
    // The queued job of the first revision is superseded by the second's.
    const jobs = await jobsOf(t, first._id)
    assert.deepEqual(
      jobs.map((j) => [j.state, j.file_revision]),
      [['queued', 1]],
    )
    assert.equal((await filesOf(t, user.account.id)).length, 1)
    // The same path of another account is another file.
    const other = await signedIn(t.app)
    const theirs = await uploadFile(t.app, other.headers, { name: 'rev.stl' })
    assert.notEqual(theirs._id, first._id)
    assert.equal(theirs.__v, 0)
  })

  test('DELETE removes the row, shares, jobs and blob; the file is gone for everyone', async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const viewer = await signedIn(t.app)
    const file = await uploadFile(t.app, owner.headers, { name: 'gone.stl', data: randomBytes(100) })
    const blobKey = (await fileRow(t, file._id))?.blob_key ?? ''
    const shared = await t.app.inject({
      method: 'POST',
      url: `/file/${file._id}/share`,
      headers: owner.headers,
      payload: { email: viewer.account.email, role: 'viewer' },
    })
    assert.equal(shared.statusCode, 200, shared.body)
    const res = await t.app.inject({ method: 'DELETE', url: `/file/${file._id}`, headers: owner.headers })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json(), { success: true })
    assert.equal(await fileRow(t, file._id), undefined)
    assert.equal((await jobsOf(t, file._id)).length, 0)
    const shares = await t.db.kysely
      .selectFrom('file_shares')
      .selectAll()
      .where('file_id', '=', file._id)
      .execute()
    assert.equal(shares.length, 0)
    assert.equal(await t.app.ctx.blobs.size(blobKey), null)
    for (const who of [owner, viewer]) {
      assert.equal((await get(t, who, `/file/${file._id}`)).statusCode, 404)
      assert.equal((await get(t, who, `/file/${file._id}/download`)).statusCode, 404)
      assert.equal((await get(t, who, `/file/${file._id}/revisions`)).statusCode, 404)
    }
    const again = await t.app.inject({ method: 'DELETE', url: `/file/${file._id}`, headers: owner.headers })
    assert.equal(problemOf(again).code, 'NOT_FOUND')
  })

  test('larger than the limit: 413 and nothing kept (no blob, no row, no job, no event)', async () => {
    const { t } = state
    const user = await signedIn(t.app)
    const keysBefore = await storedKeys(t)
    const eventsBefore = await t.db.kysely.selectFrom('events').select('id').execute()
    const atLimit = await uploadFile(t.app, user.headers, { name: 'exact.stl', data: randomBytes(LIMIT) })
    assert.equal(atLimit.size, LIMIT)
    const keysWithExact = await storedKeys(t)
    assert.equal(keysWithExact.length, keysBefore.length + 1)

    const over = await postForm(t.app, user.headers, [
      { name: 'file', filename: 'big.stl', data: randomBytes(LIMIT + 1) },
    ])
    assert.equal(over.statusCode, 413, over.body)
    assert.equal(problemOf(over).code, 'PAYLOAD_TOO_LARGE')
    assert.equal(over.headers.connection, 'close')
    // Declared far larger than any acceptable upload: refused before reading the body.
    const huge = await postForm(t.app, user.headers, [
      { name: 'file', filename: 'huge.stl', data: randomBytes(LIMIT + 300 * 1024) },
    ])
    assert.equal(huge.statusCode, 413)
    // A revision that is too large keeps the current revision as it was.
    const tooBigRevision = await postForm(t.app, user.headers, [
      { name: 'file', filename: 'exact.stl', data: randomBytes(LIMIT + 10) },
    ])
    assert.equal(tooBigRevision.statusCode, 413)

    assert.deepEqual(await storedKeys(t), keysWithExact)
    const rows = await filesOf(t, user.account.id)
    assert.deepEqual(
      rows.map((r) => [r.name, r.version]),
      [['exact.stl', 0]],
    )
    assert.equal((await jobsOf(t, atLimit._id)).length, 1)
    const eventsAfter = await t.db.kysely.selectFrom('events').select('id').execute()
    assert.equal(eventsAfter.length, eventsBefore.length + 1)
  })
}

function filesystemOnlyTests(state: { t: TestApp; rx: Receiver }) {
  test('file names: traversal, separators, control and bidi characters, length; 400 and nothing stored', async () => {
    const { t } = state
    const user = await signedIn(t.app)
    const keysBefore = await storedKeys(t)
    const bad = [
      '../../evil.stl',
      '../../../etc/passwd',
      'a/b.stl',
      '..\\evil.stl',
      'C:\\Users\\x\\model.stl',
      '..',
      '.',
      '',
      '   ',
      'evil\u0001.stl',
      'tab\tname.stl',
      'del\u007f.stl',
      'c1\u0085.stl',
      'photo\u202Egpj.exe',
      'isolate\u2066x.stl',
      `${'é'.repeat(128)}.stl`, // 256 bytes + 4
    ]
    for (const filename of bad) {
      const res = await postForm(t.app, user.headers, [{ name: 'file', filename, data: Buffer.from('x') }])
      assert.equal(res.statusCode, 400, `${JSON.stringify(filename)}: ${res.body}`)
      assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
    }
    for (const parent of ['../../x', '/a/../b', 'a/./b', 'a\u0000b', 'x\\..\\y']) {
      const res = await postForm(t.app, user.headers, [
        { name: 'parent', value: parent },
        { name: 'file', filename: 'ok.stl', data: Buffer.from('x') },
      ])
      assert.equal(res.statusCode, 400, `${JSON.stringify(parent)}: ${res.body}`)
    }
    // `parent` after the file part: checked too, and the stored blob is removed again.
    const late = await postForm(t.app, user.headers, [
      { name: 'file', filename: 'ok.stl', data: Buffer.from('x') },
      { name: 'parent', value: '../../up' },
    ])
    assert.equal(late.statusCode, 400)
    assert.deepEqual(await storedKeys(t), keysBefore)
    assert.equal((await filesOf(t, user.account.id)).length, 0)

    // Acceptable names are kept as sent (NFC, surrounding white space trimmed).
    const longest = `${'a'.repeat(251)}.stl`
    const accepted: Array<[string, string]> = [
      ['  Modèle 3D (v2).STL ', 'Modèle 3D (v2).STL'],
      ['e\u0301te\u0301.obj', 'été.obj'],
      ['.hidden.stl', '.hidden.stl'],
      [longest, longest],
    ]
    for (const [sent, stored] of accepted) {
      const file = await uploadFile(t.app, user.headers, { name: sent })
      assert.equal(file.name, stored)
      assert.equal(file.key, `/${stored}`)
    }
  })

  test('bad multipart bodies: no file part, a field named file, two files, not multipart, truncated', async () => {
    const { t } = state
    const user = await signedIn(t.app)
    const cases: Array<[string, FormPart[]]> = [
      ['no parts', []],
      ['only parent', [{ name: 'parent', value: '/x' }]],
      ['file as a plain field', [{ name: 'file', value: 'not a file' }]],
      ['file part under another name', [{ name: 'upload', filename: 'a.stl', data: Buffer.from('x') }]],
      [
        'two files',
        [
          { name: 'file', filename: 'a.stl', data: Buffer.from('x') },
          { name: 'file', filename: 'b.stl', data: Buffer.from('y') },
        ],
      ],
      ['file part without a name', [{ name: 'file', data: Buffer.from('x') }]],
    ]
    for (const [what, parts] of cases) {
      const res = await postForm(t.app, user.headers, parts)
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`)
      assert.equal(problemOf(res).code, 'VALIDATION_FAILED', what)
    }
    const json = await t.app.inject({
      method: 'POST',
      url: '/file/upload/',
      headers: user.headers,
      payload: { file: 'x' },
    })
    assert.equal(json.statusCode, 415, json.body)
    const noBoundary = await t.app.inject({
      method: 'POST',
      url: '/file/upload/',
      headers: { ...user.headers, 'content-type': 'multipart/form-data' },
      payload: 'x',
    })
    assert.ok([400, 415].includes(noBoundary.statusCode), noBoundary.body)
    const truncated = await t.app.inject({
      method: 'POST',
      url: '/file/upload/',
      headers: { ...user.headers, 'content-type': 'multipart/form-data; boundary=XX' },
      payload: '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.stl"\r\n\r\nhalf a fi',
    })
    assert.equal(truncated.statusCode, 400, truncated.body)
    assert.equal((await filesOf(t, user.account.id)).length, 0)
    const unauthenticated = await postForm(t.app, {}, [
      { name: 'file', filename: 'a', data: Buffer.from('x') },
    ])
    assert.equal(unauthenticated.statusCode, 401)
  })

  test('file_uploaded reaches the owner’s webhook with data = the file record, for uploads and revisions', async () => {
    const { t, rx } = state
    const user = await signedIn(t.app)
    await register(t.app, user.authToken, 'file_uploaded', `${rx.base}/own-${user.account.id}`)
    const first = await uploadFile(t.app, user.headers, { name: 'hook.stl', parent: 'd' })
    const second = await uploadFile(t.app, user.headers, { name: 'hook.stl', parent: 'd' })
    const got = await until('two file_uploaded', () => {
      const list = rx.envelopes(`/own-${user.account.id}`)
      return list.length >= 2 ? list : null
    })
    const byVersion = got.sort((a, b) => (a.data as UploadedFile).__v - (b.data as UploadedFile).__v)
    assert.deepEqual(
      byVersion.map((e) => e.data),
      [specRecord(first), specRecord(second)],
    )
    for (const envelope of byVersion) {
      assert.equal(envelope.event, 'file_uploaded')
      assert.equal(envelope.file, first._id)
      assert.equal(envelope.owner, user.account.email)
    }
  })

  test('fan-out: a viewer’s webhook hears of a file shared with them, a stranger’s does not', async () => {
    const { t, rx } = state
    const owner = await signedIn(t.app)
    const viewer = await signedIn(t.app)
    const stranger = await signedIn(t.app)
    const file = await uploadFile(t.app, owner.headers, { name: 'fan.stl' })
    await t.app.inject({
      method: 'POST',
      url: `/file/${file._id}/share`,
      headers: owner.headers,
      payload: { email: viewer.account.email, role: 'viewer' },
    })
    const viewerHook = await register(t.app, viewer.authToken, 'file_uploaded', `${rx.base}/viewer`)
    const strangerHook = await register(t.app, stranger.authToken, 'file_uploaded', `${rx.base}/stranger`)
    const revision = await uploadFile(t.app, owner.headers, { name: 'fan.stl' })
    const [envelope] = await until('the viewer’s delivery', () => {
      const list = rx.envelopes('/viewer')
      return list.length > 0 ? list : null
    })
    assert.equal(envelope?.file, file._id)
    assert.deepEqual(envelope?.data, specRecord(revision))
    assert.equal(envelope?.owner, viewer.account.email)
    const deliveries = await t.db.kysely
      .selectFrom('deliveries')
      .select(['webhook_id'])
      .where('webhook_id', 'in', [viewerHook, strangerHook])
      .execute()
    assert.deepEqual(
      deliveries.map((d) => d.webhook_id),
      [viewerHook],
    )
    assert.equal(rx.envelopes('/stranger').length, 0)
    // The stranger's own upload reaches the stranger; the viewer hears nothing of it.
    await uploadFile(t.app, stranger.headers, { name: 'mine.stl' })
    await until('the stranger’s own delivery', () => rx.envelopes('/stranger').length === 1)
    assert.equal(rx.envelopes('/viewer').length, 1)
  })

  test('sharing: roles in the record, role changes, unshare, unknown e-mail, self, bad role', async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const a = await signedIn(t.app)
    const b = await signedIn(t.app)
    const file = await uploadFile(t.app, owner.headers, { name: 'shared.stl' })
    const share = (email: string, role: string) =>
      t.app.inject({
        method: 'POST',
        url: `/file/${file._id}/share`,
        headers: owner.headers,
        payload: { email, role },
      })
    const r1 = await share(b.account.email, 'editor')
    assert.equal(r1.statusCode, 200, r1.body)
    const r2 = await share(a.account.email.toUpperCase(), 'viewer')
    assert.equal(r2.statusCode, 200, r2.body)
    const shared = r2.json().file as UploadedFile
    const expected = [
      { email: a.account.email, role: 'viewer' },
      { email: b.account.email, role: 'editor' },
    ].sort((x, y) => x.email.localeCompare(y.email))
    assert.deepEqual(shared.roles, expected)
    assert.equal(shared.__v, file.__v + 2)
    assert.ok(Date.parse(String(shared.updated)) >= Date.parse(String(file.updated)))
    assert.deepEqual((await get(t, owner, `/file/${file._id}`)).json().file, shared)
    // The viewer sees the same record, with their own role and capabilities.
    const asViewer = (await get(t, a, `/file/${file._id}`)).json().file as UploadedFile
    assert.deepEqual(specRecord(asViewer), specRecord(shared))
    assert.equal(asViewer.role, 'viewer')

    const promoted = await share(a.account.email, 'editor')
    assert.deepEqual(
      (promoted.json().file as UploadedFile).roles,
      expected.map((r) => ({ ...r, role: 'editor' })),
    )

    const unshared = await t.app.inject({
      method: 'DELETE',
      url: `/file/${file._id}/share/${encodeURIComponent(a.account.email)}`,
      headers: owner.headers,
    })
    assert.equal(unshared.statusCode, 200, unshared.body)
    assert.deepEqual((unshared.json().file as UploadedFile).roles, [
      { email: b.account.email, role: 'editor' },
    ])
    assert.equal((await get(t, a, `/file/${file._id}`)).statusCode, 404)
    const twice = await t.app.inject({
      method: 'DELETE',
      url: `/file/${file._id}/share/${encodeURIComponent(a.account.email)}`,
      headers: owner.headers,
    })
    assert.equal(problemOf(twice).code, 'NOT_FOUND')

    const unknown = await share('nobody-here@example.com', 'viewer')
    assert.equal(unknown.statusCode, 404)
    assert.equal(problemOf(unknown).code, 'NOT_FOUND')
    const unknownDelete = await t.app.inject({
      method: 'DELETE',
      url: `/file/${file._id}/share/nobody-here@example.com`,
      headers: owner.headers,
    })
    assert.equal(unknownDelete.statusCode, 404)
    assert.equal((await share(owner.account.email, 'viewer')).statusCode, 400)
    assert.equal((await share(a.account.email, 'owner')).statusCode, 400)
    const extra = await t.app.inject({
      method: 'POST',
      url: `/file/${file._id}/share`,
      headers: owner.headers,
      payload: { email: a.account.email, role: 'viewer', admin: true },
    })
    assert.equal(extra.statusCode, 400)
  })

  test('role matrix: owner, editor, viewer, stranger on every file route', async () => {
    const { t } = state
    const owner = await signedIn(t.app)
    const editor = await signedIn(t.app)
    const viewer = await signedIn(t.app)
    const stranger = await signedIn(t.app)
    const other = await signedIn(t.app)
    const file = await uploadFile(t.app, owner.headers, { name: 'matrix.stl' })
    for (const [who, role] of [
      [editor, 'editor'],
      [viewer, 'viewer'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/file/${file._id}/share`,
        headers: owner.headers,
        payload: { email: who.account.email, role },
      })
      assert.equal(res.statusCode, 200, res.body)
    }
    const routes: Array<{ name: string; call: (u: User) => ReturnType<typeof get>; readers: boolean }> = [
      { name: 'GET /file/:id', call: (u) => get(t, u, `/file/${file._id}`), readers: true },
      { name: 'GET /file/:id/download', call: (u) => get(t, u, `/file/${file._id}/download`), readers: true },
      {
        name: 'GET /file/:id/revisions',
        call: (u) => get(t, u, `/file/${file._id}/revisions`),
        readers: true,
      },
      {
        name: 'POST /file/:id/share',
        readers: false,
        call: (u) =>
          t.app.inject({
            method: 'POST',
            url: `/file/${file._id}/share`,
            headers: u.headers,
            payload: { email: other.account.email, role: 'viewer' },
          }),
      },
      {
        name: 'DELETE /file/:id/share/:email',
        readers: false,
        call: (u) =>
          t.app.inject({
            method: 'DELETE',
            url: `/file/${file._id}/share/${encodeURIComponent(viewer.account.email)}`,
            headers: u.headers,
          }),
      },
      {
        name: 'DELETE /file/:id',
        readers: false,
        call: (u) => t.app.inject({ method: 'DELETE', url: `/file/${file._id}`, headers: u.headers }),
      },
    ]
    for (const route of routes) {
      const s = await route.call(stranger)
      assert.equal(s.statusCode, 404, `stranger ${route.name}`)
      assert.equal(problemOf(s).code, 'NOT_FOUND')
      for (const reader of [editor, viewer]) {
        const r = await route.call(reader)
        if (route.readers) assert.equal(r.statusCode, 200, `reader ${route.name}`)
        else {
          assert.equal(r.statusCode, 403, `reader ${route.name}: ${r.body}`)
          assert.equal(problemOf(r).code, 'FORBIDDEN')
        }
      }
    }
    // Nothing changed for anyone (the matrix ran no successful write).
    const record = (await get(t, owner, `/file/${file._id}`)).json().file as UploadedFile
    assert.equal(record.__v, 2)
    // Unknown and malformed IDs are 404 too.
    for (const id of ['ffffffffffffffffffffffff', 'not-an-id', 'FFFFFFFFFFFFFFFFFFFFFFFF']) {
      assert.equal((await get(t, owner, `/file/${id}`)).statusCode, 404, id)
    }
    // Finally, the owner may do each of them.
    for (const route of routes) assert.equal((await route.call(owner)).statusCode, 200, `owner ${route.name}`)
  })
}

for (const dialect of dialects()) {
  for (const storage of STORAGES) {
    describe(`files on ${dialect.name} with ${storage.name} blobs`, () => {
      const state = { t: undefined as unknown as TestApp, rx: new Receiver() }
      let stopStorage: () => Promise<void> = async () => {}
      before(async () => {
        await state.rx.start()
        const started = await storage.start()
        stopStorage = started.close
        state.t = await startApp(dialect as DialectUnderTest, {
          uploadMaxBytes: LIMIT,
          licenses: 1000,
          webhookRetryScheduleMs: [0, 200],
          ...started.overrides,
        })
      })
      after(async () => {
        await state.t.close()
        await stopStorage()
        await state.rx.stop()
      })
      storagePathTests(state)
      if (storage.name === 'filesystem') filesystemOnlyTests(state)
    })
  }
}

describe('upload memory', () => {
  test('a 48 MiB upload streams to storage: retained memory stays far below its size', async () => {
    // A full GC before each sample measures what the server holds on to, not garbage not yet collected.
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const [dialect] = dialects()
    assert.ok(dialect)
    const t = await startApp(dialect, { uploadMaxBytes: 64 * 1024 * 1024, licenses: 10 })
    try {
      const user = await signedIn(t.app)
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      const chunk = randomBytes(256 * 1024)
      const chunks = 192 // 48 MiB
      const hash = createHash('sha256')
      for (let i = 0; i < chunks; i++) hash.update(chunk)
      const boundary = 'memory-test-boundary'
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.stl"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      )
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
      const length = head.length + chunk.length * chunks + tail.length
      const request = httpRequest(`${address}/file/upload/`, {
        method: 'POST',
        headers: {
          ...user.headers,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': length,
        },
      })
      const answered = once(request, 'response') as Promise<[IncomingMessage]>
      gc()
      const baseline = process.memoryUsage()
      let peak = 0
      const sample = () => {
        gc()
        const now = process.memoryUsage()
        peak = Math.max(peak, now.arrayBuffers - baseline.arrayBuffers + now.heapUsed - baseline.heapUsed)
      }
      request.write(head)
      for (let i = 0; i < chunks; i++) {
        if (!request.write(chunk)) await once(request, 'drain')
        if (i % 16 === 0) sample()
      }
      request.end(tail)
      const [response] = await answered
      sample()
      const body = JSON.parse((await buffer(response)).toString()) as { file: UploadedFile }
      assert.equal(response.statusCode, 200)
      assert.equal(body.file.size, chunk.length * chunks)
      const row = await fileRow(t, body.file._id)
      assert.equal(row?.sha256, hash.digest('hex'))
      assert.ok(peak < 16 * 1024 * 1024, `retained ${Math.round(peak / 1024 / 1024)} MiB during the upload`)
    } finally {
      await t.close()
    }
  })
})
