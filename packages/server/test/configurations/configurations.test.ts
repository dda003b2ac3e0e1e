// Configurations: the record field by field with defaults, create vs update on one route,
// lastModification* set by updates only, __v, delete by body or query, access lists, the role matrix
// and bad input. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Value } from 'typebox/value'
import { ConfigurationRecord } from '../../src/contract/index.ts'
import { problemOf } from '../support/api.ts'
import { type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const ID = /^[0-9a-f]{24}$/
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
// The spec's table, in order; lastModificationDate only after an update.
const FIELDS = [
  '_id',
  'file',
  'name',
  'author',
  'lastModificationAuthor',
  'lockedBy',
  'lastActivationDate',
  'date',
  'disableCamera',
  'cameraPosition',
  'cameraType',
  'environmentFile',
  'environmentBrightness',
  'environmentOrientation',
  'layersEnabled',
  'enabledLayers',
  'behaviorsEnabled',
  'enabledBehaviors',
  'enabledEffects',
  'transparencyEffectParameters',
  'explodedViewDistance',
  'explodedViewEnabled',
  'environmentEnabled',
  'skyboxEnabled',
  'iblEnabled',
  'upVector',
  'zNear',
  'cameraFoVIndex',
  'activeOnStart',
  'modifiersEnabled',
  'modifiers',
  'sceneEnabled',
  'rememberSelection',
  'sceneTree',
  'selectedNodes',
  'autosaveCameraPosition',
  'collaborationEnabled',
  'collaborativeAvatarsEnabled',
  'collaborativeSelectionEnabled',
  'enabledClippingPlanes',
  'clippingPlanesEnabled',
  'enabledQuotations',
  'quotationsEnabled',
  'readPermissions',
  'writePermissions',
  'renderMode',
  '__v',
]

type Headers = Record<string, string>
type Configuration = Record<string, unknown> & { _id: string; __v: number }

for (const dialect of dialects()) {
  describe(`configurations on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      m = await team(t.app)
    })
    after(async () => t.close())

    const save = (headers: Headers, body: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/file/configuration/', headers, payload: body })
    const del = (headers: Headers, url: string, payload?: unknown) =>
      t.app.inject({
        method: 'DELETE',
        url,
        headers,
        ...(payload === undefined ? {} : { payload: payload as object }),
      })
    const list = (headers: Headers) =>
      t.app.inject({ method: 'GET', url: `/file/configuration/?file=${m.fileId}`, headers })
    async function create(headers: Headers, body: Record<string, unknown> = {}): Promise<Configuration> {
      const res = await save(headers, { file: m.fileId, ...body })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().configuration
    }

    test('create: every field, sensible defaults, nullable fields present as null, no lastModificationDate', async () => {
      const before = Date.now()
      const res = await save(m.editor.headers, { file: m.fileId })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(Object.keys(res.json()), ['success', 'configuration'])
      const c = res.json().configuration
      assert.deepEqual(Object.keys(c), FIELDS)
      assert.equal(Value.Check(ConfigurationRecord, c), true)
      assert.match(c._id, ID)
      assert.equal(c.file, m.fileId)
      assert.equal(c.name, 'Untitled')
      assert.equal(c.author, m.editor.account.email)
      assert.equal(c.lastModificationAuthor, null)
      assert.equal(c.lockedBy, null)
      assert.match(c.lastActivationDate, ISO_UTC)
      assert.ok(Number.isInteger(c.date) && String(c.date).length === 13 && c.date >= before)
      assert.equal('lastModificationDate' in c, false)
      assert.equal(c.cameraType, null)
      assert.equal(c.environmentFile, null)
      assert.equal(c.explodedViewDistance, null)
      assert.equal(c.upVector, 'Y+')
      assert.equal(c.zNear, 0.1)
      assert.equal(c.environmentBrightness, 1)
      assert.equal(c.environmentOrientation, 0)
      assert.equal(c.cameraFoVIndex, 0)
      assert.equal(c.sceneTree, 0)
      assert.equal(c.sceneEnabled, true)
      assert.equal(c.renderMode, 'phong')
      assert.equal(c.transparencyEffectParameters.alphaCoefficient, 0.5)
      assert.match(c.transparencyEffectParameters._id, ID)
      assert.deepEqual(Object.keys(c.transparencyEffectParameters), ['alphaCoefficient', '_id'])
      for (const key of [
        'disableCamera',
        'layersEnabled',
        'behaviorsEnabled',
        'explodedViewEnabled',
        'activeOnStart',
      ]) {
        assert.equal(c[key], false, key)
      }
      for (const key of [
        'cameraPosition',
        'enabledLayers',
        'enabledBehaviors',
        'modifiers',
        'selectedNodes',
        'readPermissions',
      ]) {
        assert.deepEqual(c[key], [], key)
      }
      assert.equal(c.__v, 0)
    })

    test('update with _id: only given fields change; lastModification* set; __v bumps; stale __v 409', async () => {
      const c = await create(m.owner.headers, { name: 'Front', cameraPosition: [1, 2, 3], upVector: 'Z+' })
      const res = await save(m.editor.headers, {
        _id: c._id,
        __v: 0,
        name: 'Front view',
        explodedViewDistance: 2.5,
        transparencyEffectParameters: { alphaCoefficient: 0.25 },
        renderMode: 'pbr',
        lastActivationDate: '2026-01-02T03:04:05.000Z',
      })
      assert.equal(res.statusCode, 200, res.body)
      const u = res.json().configuration
      // Every field once more, now with lastModificationDate (its position in the JSON is not significant).
      assert.deepEqual(Object.keys(u).sort(), [...FIELDS, 'lastModificationDate'].sort())
      assert.equal(Value.Check(ConfigurationRecord, u), true)
      assert.equal(u.name, 'Front view')
      assert.deepEqual(u.cameraPosition, [1, 2, 3])
      assert.equal(u.upVector, 'Z+')
      assert.equal(u.explodedViewDistance, 2.5)
      assert.deepEqual(u.transparencyEffectParameters, {
        alphaCoefficient: 0.25,
        _id: (c.transparencyEffectParameters as { _id: string })._id,
      })
      assert.equal(u.renderMode, 'pbr')
      assert.equal(u.lastActivationDate, '2026-01-02T03:04:05.000Z')
      assert.equal(u.lastModificationAuthor, m.editor.account.email)
      assert.ok(
        Number.isInteger(u.lastModificationDate) && (u.lastModificationDate as number) >= (c.date as number),
      )
      assert.equal(u.author, m.owner.account.email)
      assert.equal(u.date, c.date)
      assert.equal(u.__v, 1)
      const stale = await save(m.editor.headers, { _id: c._id, __v: 0, name: 'x' })
      assert.equal(stale.statusCode, 409)
      assert.equal(problemOf(stale).code, 'CONFLICT')
      const same = await save(m.editor.headers, { _id: c._id, name: 'Front view' })
      assert.equal(same.json().configuration.__v, 1)
      const nulled = await save(m.owner.headers, {
        _id: c._id,
        explodedViewDistance: null,
        lockedBy: m.owner.account.email,
      })
      assert.equal(nulled.json().configuration.explodedViewDistance, null)
      // lockedBy is the lock calls' (test/configurations/locks.test.ts): ignored here.
      assert.equal(nulled.json().configuration.lockedBy, null)
      assert.equal(nulled.json().configuration.lastModificationAuthor, m.owner.account.email)
    })

    test('delete by body or query answers the record with renderMode; then 404; list shows the rest', async () => {
      const a = await create(m.owner.headers)
      const b = await create(m.owner.headers)
      const kept = await create(m.owner.headers)
      const byBody = await del(m.owner.headers, '/file/configuration/', { _id: a._id })
      assert.equal(byBody.statusCode, 200, byBody.body)
      assert.deepEqual(byBody.json().configuration, a)
      assert.equal(byBody.json().configuration.renderMode, 'phong')
      assert.equal((await del(m.owner.headers, `/file/configuration/?_id=${b._id}`)).statusCode, 200)
      assert.equal((await del(m.owner.headers, `/file/configuration/?_id=${b._id}`)).statusCode, 404)
      const got = ((await list(m.viewer.headers)).json().configurations as Configuration[]).map((x) => x._id)
      assert.ok(got.includes(kept._id) && !got.includes(a._id) && !got.includes(b._id))
    })

    test('access lists: hidden without readPermissions, 403 without writePermissions, author/owner bypass', async () => {
      const c = await create(m.editor.headers, {
        readPermissions: [m.editor.account.email],
        writePermissions: [m.editor.account.email],
      })
      const viewerList = (await list(m.viewer.headers)).json().configurations as Configuration[]
      assert.ok(!viewerList.some((x) => x._id === c._id))
      assert.ok(
        ((await list(m.owner.headers)).json().configurations as Configuration[]).some((x) => x._id === c._id),
      )
      assert.equal((await save(m.viewer.headers, { _id: c._id, name: 'x' })).statusCode, 404)
      assert.equal((await save(m.owner.headers, { _id: c._id, name: 'by owner' })).statusCode, 200)
      const open = await create(m.owner.headers, { writePermissions: [m.owner.account.email] })
      assert.equal((await save(m.editor.headers, { _id: open._id, name: 'x' })).statusCode, 403)
      assert.equal((await del(m.editor.headers, '/file/configuration/', { _id: open._id })).statusCode, 403)
      const lists = await create(m.owner.headers)
      const grab = await save(m.editor.headers, { _id: lists._id, readPermissions: [m.editor.account.email] })
      assert.equal(grab.statusCode, 403)
    })

    test('role matrix: owner and editor write, viewer reads, stranger 404 on every route', async () => {
      const expectWrite = { owner: 200, editor: 200, viewer: 403, stranger: 404 } as const
      const expectRead = { owner: 200, editor: 200, viewer: 200, stranger: 404 } as const
      for (const role of ['owner', 'editor', 'viewer', 'stranger'] as const) {
        const who = m[role]
        const created = await save(who.headers, { file: m.fileId })
        assert.equal(created.statusCode, expectWrite[role], `create as ${role}: ${created.body}`)
        const target = await create(m.owner.headers)
        const updated = await save(who.headers, { _id: target._id, name: 'x' })
        assert.equal(updated.statusCode, expectWrite[role], `update as ${role}: ${updated.body}`)
        const deleted = await del(who.headers, `/file/configuration/?_id=${target._id}`)
        assert.equal(deleted.statusCode, expectWrite[role], `delete as ${role}: ${deleted.body}`)
        assert.equal((await list(who.headers)).statusCode, expectRead[role], `list as ${role}`)
      }
      assert.equal((await list({})).statusCode, 401)
    })

    test('bad input: wrong types 400, unknown ids 404, DELETE without id 400', async () => {
      const c = await create(m.owner.headers)
      const bad: Record<string, unknown>[] = [
        {},
        { file: m.fileId, __v: 0 },
        { file: m.fileId, upVector: 'up' },
        { file: m.fileId, zNear: 0 },
        { file: m.fileId, disableCamera: 'yes' },
        { file: m.fileId, cameraFoVIndex: 1.5 },
        { file: m.fileId, cameraPosition: ['1'] },
        { file: m.fileId, enabledBehaviors: ['nope'] },
        { file: m.fileId, lastActivationDate: 'yesterday' },
        { file: m.fileId, transparencyEffectParameters: { alphaCoefficient: 2 } },
        { file: m.fileId, author: 'me@example.com' },
        { file: m.fileId, renderMode: 7 },
        { _id: c._id, file: 'ffffffffffffffffffffffff' },
        { _id: 'short' },
      ]
      for (const body of bad) {
        const res = await save(m.owner.headers, body)
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.body}`)
        assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
      }
      const noId = await del(m.owner.headers, '/file/configuration/')
      assert.equal(noId.statusCode, 400)
      assert.equal((await del(m.owner.headers, '/file/configuration/', {})).statusCode, 400)
      const unknown = 'ffffffffffffffffffffffff'
      assert.equal((await save(m.owner.headers, { file: unknown })).statusCode, 404)
      assert.equal((await save(m.owner.headers, { _id: unknown, name: 'x' })).statusCode, 404)
      assert.equal((await del(m.owner.headers, `/file/configuration/?_id=${unknown}`)).statusCode, 404)
      const listUnknown = await t.app.inject({
        method: 'GET',
        url: `/file/configuration/?file=${unknown}`,
        headers: m.owner.headers,
      })
      assert.equal(listUnknown.statusCode, 404)
    })
  })
}
