// JSON bodies nested thousands of levels deep are refused at parse time (400 VALIDATION_FAILED
// naming the limit) on every route, instead of crashing validation or serialization with a 500.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/platform/http.ts'
import { problemOf, signedIn } from '../support/api.ts'
import { insertFileRow } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`

test('the depth scan counts brackets outside strings only', () => {
  assert.equal(nestsDeeperThan(deepArray(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false)
  assert.equal(nestsDeeperThan(deepArray(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true)
  assert.equal(nestsDeeperThan(JSON.stringify({ a: '['.repeat(1000) }), MAX_JSON_DEPTH), false)
  assert.equal(nestsDeeperThan(JSON.stringify({ a: `\\"${'{'.repeat(100)}` }), MAX_JSON_DEPTH), false)
  assert.equal(nestsDeeperThan(`{"a":"\\\\",${'{"b":'.repeat(70)}1${'}'.repeat(70)}}`, MAX_JSON_DEPTH), true)
})

for (const dialect of dialects()) {
  describe(`deeply nested bodies on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect)
    })
    after(() => t.close())

    test('10,000-deep arrays at annotations, scene attributes and configurations answer 400', async () => {
      const s = await signedIn(t.app)
      const file = await insertFileRow(t.app, s.account.id)
      const deep = deepArray(10_000)
      const cases: Array<[string, string]> = [
        ['/annotation/create/', `{"file":"${file}","name":"deep","targets":${deep}}`],
        ['/scene/attributes', `{"file":"${file}","nodeIdToAttributes":{"n1":{"a":${deep}}}}`],
        ['/file/configuration/', `{"file":"${file}","enabledLayers":${deep}}`],
      ]
      for (const [url, payload] of cases) {
        const res = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...s.headers, 'content-type': 'application/json' },
          payload,
        })
        assert.equal(res.statusCode, 400, `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`)
        const problem = problemOf(res)
        assert.equal(problem.code, 'VALIDATION_FAILED')
        assert.match(problem.detail, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`))
      }
      // Nesting within the limit is still accepted, and the server is healthy.
      const shallow = await t.app.inject({
        method: 'POST',
        url: '/file/configuration/',
        headers: { ...s.headers, 'content-type': 'application/json' },
        payload: `{"file":"${file}","enabledLayers":${deepArray(MAX_JSON_DEPTH - 1)}}`,
      })
      assert.equal(shallow.statusCode, 200, shallow.body)
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    })
  })
}
