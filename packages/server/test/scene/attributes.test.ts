// Scene attributes: merge semantics, node IDs against a known scene tree, reads, bad input. Every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { replaceSceneTree } from '../../src/modules/scene/index.ts'
import { problemOf } from '../support/api.ts'
import { insertFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

for (const dialect of dialects()) {
  describe(`scene attributes on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      m = await team(t.app)
    })
    after(async () => t.close())

    const write = (headers: Record<string, string>, body: unknown) =>
      t.app.inject({ method: 'POST', url: '/scene/attributes', headers, payload: body as object })
    const read = (headers: Record<string, string>, fileId: string) =>
      t.app.inject({ method: 'GET', url: `/scene/attributes?file=${fileId}`, headers })

    test('writes merge per attribute; null removes one; reads return every node', async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      const first = await write(m.owner.headers, {
        file: fileId,
        nodeIdToAttributes: {
          n1: { color: 'red', weight: 2.5, meta: { a: [1, 2] } },
          n2: { visible: false },
        },
      })
      assert.equal(first.statusCode, 200, first.body)
      assert.deepEqual(first.json(), {
        success: true,
        nodeIdToAttributes: {
          n1: { color: 'red', meta: { a: [1, 2] }, weight: 2.5 },
          n2: { visible: false },
        },
      })
      const second = await write(m.owner.headers, {
        file: fileId,
        nodeIdToAttributes: { n1: { color: 'blue', weight: null, missing: null }, n3: {} },
      })
      assert.equal(second.statusCode, 200, second.body)
      assert.deepEqual(second.json().nodeIdToAttributes, {
        n1: { color: 'blue', meta: { a: [1, 2] } },
        n3: {},
      })
      const all = await read(m.owner.headers, fileId)
      assert.equal(all.statusCode, 200)
      assert.deepEqual(all.json(), {
        success: true,
        nodeIdToAttributes: { n1: { color: 'blue', meta: { a: [1, 2] } }, n2: { visible: false } },
      })
    })

    test('values keep their JSON types; odd node and attribute names are plain keys', async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      const attrs = {
        s: 'x',
        i: 7,
        f: -0.25,
        b: true,
        a: [1, 'two', null],
        o: { nested: { deep: 1 } },
        constructor: 'c',
      }
      const res = await write(m.owner.headers, {
        file: fileId,
        nodeIdToAttributes: { 'node/ü 1': attrs, toString: { x: 1 } },
      })
      assert.equal(res.statusCode, 200, res.body)
      const got = (await read(m.owner.headers, fileId)).json().nodeIdToAttributes
      assert.deepEqual(got['node/ü 1'], attrs)
      assert.deepEqual(got.toString, { x: 1 })
    })

    test('without a scene tree any node ID is accepted; once the tree is known, unknown IDs are 400', async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      assert.equal(
        (await write(m.owner.headers, { file: fileId, nodeIdToAttributes: { anything: { a: 1 } } }))
          .statusCode,
        200,
      )
      await replaceSceneTree(t.db.kysely, fileId, [
        { id: 'root', name: 'Root', children: [{ id: 'wheel', name: 'Wheel', children: [] }] },
      ])
      const ok = await write(m.owner.headers, {
        file: fileId,
        nodeIdToAttributes: { root: { a: 1 }, wheel: { b: 2 } },
      })
      assert.equal(ok.statusCode, 200, ok.body)
      const bad = await write(m.owner.headers, {
        file: fileId,
        nodeIdToAttributes: { wheel: { b: 3 }, ghost: { c: 1 } },
      })
      assert.equal(bad.statusCode, 400)
      const problem = problemOf(bad)
      assert.equal(problem.code, 'UNKNOWN_NODE')
      assert.match(problem.detail, /"ghost"/)
      // Nothing of a refused write is stored.
      assert.deepEqual((await read(m.owner.headers, fileId)).json().nodeIdToAttributes.wheel, { b: 2 })
      // Attributes of nodes outside a newer tree are kept, not lost.
      assert.deepEqual((await read(m.owner.headers, fileId)).json().nodeIdToAttributes.anything, { a: 1 })
    })

    test('roles: owner and editor write, viewer reads only, a stranger sees nothing', async () => {
      const body = { file: m.fileId, nodeIdToAttributes: { n: { by: 'x' } } }
      assert.equal((await write(m.owner.headers, body)).statusCode, 200)
      assert.equal((await write(m.editor.headers, body)).statusCode, 200)
      const viewerWrite = await write(m.viewer.headers, body)
      assert.equal(viewerWrite.statusCode, 403)
      assert.equal(problemOf(viewerWrite).code, 'FORBIDDEN')
      const strangerWrite = await write(m.stranger.headers, body)
      assert.equal(strangerWrite.statusCode, 404)
      assert.equal(problemOf(strangerWrite).code, 'NOT_FOUND')
      for (const who of [m.owner, m.editor, m.viewer])
        assert.equal((await read(who.headers, m.fileId)).statusCode, 200)
      assert.equal((await read(m.stranger.headers, m.fileId)).statusCode, 404)
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/scene/attributes?file=${m.fileId}` })).statusCode,
        401,
      )
    })

    test('bad input: 400 for wrong types and shapes, 404 for an unknown file', async () => {
      const cases: unknown[] = [
        {},
        { file: m.fileId },
        { file: m.fileId, nodeIdToAttributes: {} },
        { file: m.fileId, nodeIdToAttributes: { n: null } },
        { file: m.fileId, nodeIdToAttributes: { n: 'red' } },
        { file: m.fileId, nodeIdToAttributes: { n: [1] } },
        { file: m.fileId, nodeIdToAttributes: { '': { a: 1 } } },
        { file: m.fileId, nodeIdToAttributes: { n: { '': 1 } } },
        { file: 42, nodeIdToAttributes: { n: { a: 1 } } },
        { file: 'not-an-id', nodeIdToAttributes: { n: { a: 1 } } },
        { file: m.fileId, nodeIdToAttributes: { n: { a: 1 } }, extra: true },
        [],
      ]
      for (const body of cases) {
        const res = await write(m.owner.headers, body)
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.body}`)
        assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
      }
      const malformed = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: { ...m.owner.headers, 'content-type': 'application/json' },
        payload: '{"file": ',
      })
      assert.equal(problemOf(malformed).code, 'MALFORMED_JSON')
      const unknown = await write(m.owner.headers, {
        file: 'ffffffffffffffffffffffff',
        nodeIdToAttributes: { n: { a: 1 } },
      })
      assert.equal(unknown.statusCode, 404)
      assert.equal((await read(m.owner.headers, 'ffffffffffffffffffffffff')).statusCode, 404)
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/scene/attributes', headers: m.owner.headers }))
          .statusCode,
        400,
      )
    })
  })
}
