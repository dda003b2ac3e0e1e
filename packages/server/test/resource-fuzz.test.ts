// Random bodies and queries against every route of scene attributes, annotations and configurations:
// whatever arrives, the answer is a 2xx or a 4xx problem document, never a 5xx (fast-check).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import { type Team, team } from './support/file-rows.ts'
import { dialects, startApp, type TestApp } from './support/harness.ts'

const ROUTES = [
  ['POST', '/scene/attributes'],
  ['GET', '/scene/attributes'],
  ['POST', '/annotation/create/'],
  ['POST', '/annotation/update/'],
  ['DELETE', '/annotation/delete/'],
  ['GET', '/annotation/'],
  ['POST', '/file/configuration/'],
  ['DELETE', '/file/configuration/'],
  ['GET', '/file/configuration/'],
] as const

for (const dialect of dialects()) {
  describe(`resource routes under random input on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      m = await team(t.app)
    })
    after(async () => t.close())

    test('no random body or query yields a 5xx', async () => {
      const id = fc.constantFrom(m.fileId, 'ffffffffffffffffffffffff', '', 'x', '0'.repeat(24))
      const field = fc.constantFrom(
        'file',
        '_id',
        'name',
        'nodeIdToAttributes',
        'permissions',
        'zNear',
        '__v',
        'upVector',
      )
      const body = fc.oneof(
        fc.jsonValue(),
        fc.dictionary(field, fc.oneof(fc.jsonValue(), id)),
        fc.record({
          file: id,
          nodeIdToAttributes: fc.dictionary(fc.string(), fc.dictionary(fc.string(), fc.jsonValue())),
        }),
      )
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...ROUTES), body, id, async ([method, url], payload, query) => {
          const res = await t.app.inject({
            method,
            url: `${url}?file=${encodeURIComponent(query)}&_id=${encodeURIComponent(query)}`,
            headers: { ...m.editor.headers, 'content-type': 'application/json' },
            payload: method === 'GET' ? undefined : JSON.stringify(payload),
          })
          assert.ok(
            res.statusCode < 500,
            `${method} ${url} ${JSON.stringify(payload)} → ${res.statusCode} ${res.body}`,
          )
        }),
        { numRuns: 150 },
      )
    })
  })
}
