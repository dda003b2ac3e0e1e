// Annotations: the record field by field, defaults, updates (__v, no-op), delete by body or query,
// the permission semantics of the access lists, the role matrix and bad input. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Value } from 'typebox/value'
import { AnnotationRecord } from '../../src/contract/index.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { insertFileRow, type Member, shareFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const ID = /^[0-9a-f]{24}$/
const RECORD_FIELDS = [
  '_id',
  'author',
  'file',
  'name',
  'content',
  'type',
  'color',
  'cameraX',
  'cameraY',
  'cameraZ',
  'date',
  'lastUpdate',
  'targets',
  'tags',
  'readPermissions',
  'writePermissions',
  'permissions',
  '__v',
]
const PERMISSION_FIELDS = [
  '_id',
  'writeTargets',
  'readTargets',
  'delete',
  'writeTitle',
  'readTitle',
  'writeDiscussion',
  'readDiscussion',
  'writeDescription',
  'readDescription',
]

type Headers = Record<string, string>
type Annotation = Record<string, unknown> & { _id: string; __v: number; permissions: Record<string, unknown> }

for (const dialect of dialects()) {
  describe(`annotations on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      m = await team(t.app)
    })
    after(async () => t.close())

    const call = (method: 'POST' | 'DELETE' | 'GET', url: string, headers: Headers, payload?: unknown) =>
      t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) })
    async function create(headers: Headers, body: Record<string, unknown>): Promise<Annotation> {
      const res = await call('POST', '/annotation/create/', headers, {
        file: m.fileId,
        name: 'A note',
        ...body,
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().annotation
    }
    const update = (headers: Headers, body: Record<string, unknown>) =>
      call('POST', '/annotation/update/', headers, body)
    const list = async (who: Member) => {
      const res = await call('GET', `/annotation/?file=${m.fileId}`, who.headers)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().annotations as Annotation[]
    }

    test('create: every field of the record, with defaults and the right types', async () => {
      const before = Date.now()
      const res = await call('POST', '/annotation/create/', m.editor.headers, {
        file: m.fileId,
        name: 'Crack',
      })
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.deepEqual(Object.keys(body), ['success', 'annotation'])
      assert.equal(body.success, true)
      const a = body.annotation
      assert.deepEqual(Object.keys(a), RECORD_FIELDS)
      assert.equal(Value.Check(AnnotationRecord, a), true)
      assert.match(a._id, ID)
      assert.equal(a.author, m.editor.account.email)
      assert.equal(a.file, m.fileId)
      assert.equal(a.name, 'Crack')
      assert.equal(a.content, '')
      assert.equal(a.type, 0)
      assert.equal(a.color, '#ffffff')
      assert.deepEqual([a.cameraX, a.cameraY, a.cameraZ], [0, 0, 0])
      assert.ok(Number.isInteger(a.date) && String(a.date).length === 13 && a.date >= before)
      assert.equal(a.lastUpdate, a.date)
      assert.deepEqual([a.targets, a.tags, a.readPermissions, a.writePermissions], [[], [], [], []])
      assert.deepEqual(Object.keys(a.permissions), PERMISSION_FIELDS)
      assert.match(a.permissions._id, ID)
      for (const key of PERMISSION_FIELDS.slice(1)) assert.deepEqual(a.permissions[key], [])
      assert.equal(a.__v, 0)
    })

    test('create with every field; update changes only what is given and bumps __v', async () => {
      const a = await create(m.owner.headers, {
        content: 'Hairline crack',
        type: 3,
        color: '#ff0000',
        cameraX: 1.5,
        cameraY: -2,
        cameraZ: 1e-3,
        targets: [{ node: 'n1', point: [0, 1, 2] }],
        tags: ['qa', 'urgent'],
        readPermissions: ['*'],
        writePermissions: [m.editor.account.email.toUpperCase()],
        permissions: { readTitle: ['*'], delete: [m.editor.account.email] },
      })
      assert.deepEqual(a.writePermissions, [m.editor.account.email])
      assert.equal(a.cameraZ, 0.001)
      assert.deepEqual(a.targets, [{ node: 'n1', point: [0, 1, 2] }])
      const res = await update(m.editor.headers, { _id: a._id, __v: 0, color: '#00ff00', cameraX: 9 })
      assert.equal(res.statusCode, 200, res.body)
      const b = res.json().annotation as Annotation
      assert.deepEqual(Object.keys(b), RECORD_FIELDS)
      assert.equal(b.color, '#00ff00')
      assert.equal(b.cameraX, 9)
      assert.equal(b.content, 'Hairline crack')
      assert.deepEqual(b.permissions, a.permissions)
      assert.equal(b.__v, 1)
      assert.equal(b.date, a.date)
      assert.ok((b.lastUpdate as number) >= (a.lastUpdate as number))
      // Stale __v: 409, nothing changes.
      const stale = await update(m.editor.headers, { _id: a._id, __v: 0, color: '#0000ff' })
      assert.equal(stale.statusCode, 409)
      assert.equal(problemOf(stale).code, 'CONFLICT')
      // Sending back unchanged values is no change: same revision.
      const same = await update(m.editor.headers, { _id: a._id, color: '#00ff00', tags: ['qa', 'urgent'] })
      assert.equal(same.statusCode, 200)
      assert.equal(same.json().annotation.__v, 1)
      // Permission arrays merge per array; the permissions _id is the server's.
      const perms = await update(m.owner.headers, {
        _id: a._id,
        permissions: { _id: 'x', writeTitle: ['*'] },
      })
      assert.equal(perms.statusCode, 200, perms.body)
      const p = perms.json().annotation.permissions
      assert.equal(p._id, a.permissions._id)
      assert.deepEqual(p.writeTitle, ['*'])
      assert.deepEqual(p.readTitle, ['*'])
    })

    test('delete by JSON body or by query; answers the removed record; then 404', async () => {
      const a = await create(m.owner.headers, {})
      const b = await create(m.owner.headers, {})
      const byBody = await call('DELETE', '/annotation/delete/', m.owner.headers, { _id: a._id })
      assert.equal(byBody.statusCode, 200, byBody.body)
      assert.deepEqual(byBody.json().annotation, a)
      const byQuery = await call('DELETE', `/annotation/delete/?_id=${b._id}`, m.owner.headers)
      assert.equal(byQuery.statusCode, 200, byQuery.body)
      assert.equal(byQuery.json().annotation._id, b._id)
      const again = await call('DELETE', `/annotation/delete/?_id=${b._id}`, m.owner.headers)
      assert.equal(again.statusCode, 404)
      assert.ok(!(await list(m.owner)).some((x) => x._id === a._id || x._id === b._id))
    })

    test('permissions: readPermissions hides, writePermissions and aspects gate, author and owner bypass', async () => {
      const other = await signedIn(t.app, 'editor2')
      await shareFileRow(t.app, m.fileId, other.account.id, 'editor')
      // Authored by the editor; only `other` is on the lists.
      const a = await create(m.editor.headers, {
        name: 'Secret',
        content: 'Body',
        targets: ['n1'],
        readPermissions: [other.account.email],
        writePermissions: [other.account.email],
        permissions: { writeTitle: ['nobody@example.com'], readDescription: ['nobody@example.com'] },
      })
      // The viewer is not on readPermissions: the annotation does not exist for them.
      assert.ok(!(await list(m.viewer)).some((x) => x._id === a._id))
      assert.equal((await update(m.viewer.headers, { _id: a._id, color: '#000000' })).statusCode, 404)
      // `other` reads it, but not its description (blanked), and may not change the title.
      const seen = (await list(other)).find((x) => x._id === a._id)
      assert.equal(seen?.name, 'Secret')
      assert.equal(seen?.content, '')
      assert.deepEqual(seen?.targets, ['n1'])
      const title = await update(other.headers, { _id: a._id, name: 'Renamed' })
      assert.equal(title.statusCode, 403)
      assert.match(problemOf(title).detail, /writeTitle/)
      const color = await update(other.headers, { _id: a._id, color: '#123456' })
      assert.equal(color.statusCode, 200, color.body)
      assert.equal(color.json().annotation.content, '')
      // Non-authors may not change the lists themselves.
      const grab = await update(other.headers, { _id: a._id, readPermissions: ['*'] })
      assert.equal(grab.statusCode, 403)
      // The author and the file owner have every right.
      const full = (await list(m.owner)).find((x) => x._id === a._id)
      assert.equal(full?.content, 'Body')
      assert.equal((await update(m.editor.headers, { _id: a._id, name: 'By author' })).statusCode, 200)
      assert.equal(
        (await update(m.owner.headers, { _id: a._id, name: 'By owner', readPermissions: ['*'] })).statusCode,
        200,
      )
      // Now everyone with file access reads it; the viewer still may not write (file role).
      assert.ok((await list(m.viewer)).some((x) => x._id === a._id))
      assert.equal((await update(m.viewer.headers, { _id: a._id, color: '#000000' })).statusCode, 403)
      // delete: gated by writePermissions and by permissions.delete.
      await update(m.owner.headers, { _id: a._id, permissions: { delete: [m.owner.account.email] } })
      const denied = await call('DELETE', '/annotation/delete/', other.headers, { _id: a._id })
      assert.equal(denied.statusCode, 403)
      assert.match(problemOf(denied).detail, /delete/)
      await update(m.owner.headers, { _id: a._id, permissions: { delete: ['*'] } })
      assert.equal(
        (await call('DELETE', '/annotation/delete/', other.headers, { _id: a._id })).statusCode,
        200,
      )
    })

    test('an empty list restricts nothing; "*" admits everyone with access to the file', async () => {
      const open = await create(m.owner.headers, { name: 'Open' })
      assert.equal((await update(m.editor.headers, { _id: open._id, name: 'Edited' })).statusCode, 200)
      const star = await create(m.owner.headers, { writePermissions: ['*'], readPermissions: ['*'] })
      assert.equal((await update(m.editor.headers, { _id: star._id, content: 'x' })).statusCode, 200)
      const closed = await create(m.owner.headers, { writePermissions: [m.owner.account.email] })
      assert.equal((await update(m.editor.headers, { _id: closed._id, content: 'x' })).statusCode, 403)
      assert.equal(
        (await call('DELETE', '/annotation/delete/', m.editor.headers, { _id: closed._id })).statusCode,
        403,
      )
    })

    test('role matrix: owner and editor write, viewer reads, stranger 404 on every route', async () => {
      const expectWrite = { owner: 200, editor: 200, viewer: 403, stranger: 404 } as const
      const expectRead = { owner: 200, editor: 200, viewer: 200, stranger: 404 } as const
      for (const role of ['owner', 'editor', 'viewer', 'stranger'] as const) {
        const who = m[role]
        const created = await call('POST', '/annotation/create/', who.headers, { file: m.fileId, name: role })
        assert.equal(created.statusCode, expectWrite[role], `create as ${role}: ${created.body}`)
        const target = await create(m.owner.headers, { name: `for ${role}` })
        const updated = await update(who.headers, { _id: target._id, name: 'x' })
        assert.equal(updated.statusCode, expectWrite[role], `update as ${role}: ${updated.body}`)
        const deleted = await call('DELETE', '/annotation/delete/', who.headers, { _id: target._id })
        assert.equal(deleted.statusCode, expectWrite[role], `delete as ${role}: ${deleted.body}`)
        const listed = await call('GET', `/annotation/?file=${m.fileId}`, who.headers)
        assert.equal(listed.statusCode, expectRead[role], `list as ${role}`)
      }
      assert.equal((await call('GET', `/annotation/?file=${m.fileId}`, {})).statusCode, 401)
    })

    test('bad input: wrong types 400, unknown ids 404, DELETE without id 400', async () => {
      const a = await create(m.owner.headers, {})
      const bad: Array<[string, 'POST' | 'DELETE', unknown]> = [
        ['/annotation/create/', 'POST', { file: m.fileId }],
        ['/annotation/create/', 'POST', { file: m.fileId, name: 5 }],
        ['/annotation/create/', 'POST', { file: m.fileId, name: 'x', type: 1.5 }],
        ['/annotation/create/', 'POST', { file: m.fileId, name: 'x', cameraX: '1' }],
        ['/annotation/create/', 'POST', { file: m.fileId, name: 'x', tags: [1] }],
        ['/annotation/create/', 'POST', { file: m.fileId, name: 'x', readPermissions: ['not an email'] }],
        ['/annotation/create/', 'POST', { file: m.fileId, name: 'x', permissions: { fly: [] } }],
        ['/annotation/create/', 'POST', { file: m.fileId, name: 'x', author: 'me@example.com' }],
        ['/annotation/create/', 'POST', { file: 'nope', name: 'x' }],
        ['/annotation/update/', 'POST', { name: 'x' }],
        ['/annotation/update/', 'POST', { _id: a._id, __v: 'zero' }],
        ['/annotation/update/', 'POST', { _id: a._id, file: m.fileId }],
        ['/annotation/update/', 'POST', { _id: a._id, targets: 'n1' }],
        ['/annotation/delete/', 'DELETE', {}],
        ['/annotation/delete/', 'DELETE', { _id: 7 }],
      ]
      for (const [url, method, payload] of bad) {
        const res = await call(method, url, m.owner.headers, payload)
        assert.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(payload)} → ${res.body}`)
      }
      const noId = await call('DELETE', '/annotation/delete/', m.owner.headers)
      assert.equal(noId.statusCode, 400)
      assert.equal(problemOf(noId).code, 'VALIDATION_FAILED')
      const differ = await call('DELETE', `/annotation/delete/?_id=${a._id}`, m.owner.headers, {
        _id: 'ffffffffffffffffffffffff',
      })
      assert.equal(differ.statusCode, 400)
      const unknown = 'ffffffffffffffffffffffff'
      assert.equal(
        (await call('POST', '/annotation/create/', m.owner.headers, { file: unknown, name: 'x' })).statusCode,
        404,
      )
      assert.equal((await update(m.owner.headers, { _id: unknown, name: 'x' })).statusCode, 404)
      assert.equal(
        (await call('DELETE', `/annotation/delete/?_id=${unknown}`, m.owner.headers)).statusCode,
        404,
      )
      assert.equal((await call('GET', `/annotation/?file=${unknown}`, m.owner.headers)).statusCode, 404)
      assert.equal((await call('GET', '/annotation/', m.owner.headers)).statusCode, 400)
      // Another account's file: its annotations do not exist for a stranger.
      const elsewhere = await insertFileRow(t.app, m.stranger.account.id)
      const theirs = await call('POST', '/annotation/create/', m.stranger.headers, {
        file: elsewhere,
        name: 'x',
      })
      assert.equal(theirs.statusCode, 200)
      assert.equal(
        (await update(m.owner.headers, { _id: theirs.json().annotation._id, name: 'y' })).statusCode,
        404,
      )
    })
  })
}
