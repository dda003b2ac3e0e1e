// HTTP basics: problem documents for every error, health, JWKS, OpenAPI (and its committed copy),
// request IDs, and logs that never contain a credential.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { OPENAPI_FILE, renderOpenApi } from '../../scripts/openapi.ts'
import { PASSWORD, problemOf, signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, LogCapture, startApp, type TestApp } from '../support/harness.ts'

test('the committed openapi.json matches the code (run `npm run openapi` after changing routes)', async () => {
  assert.equal(readFileSync(OPENAPI_FILE, 'utf8'), await renderOpenApi())
})

for (const dialect of dialects()) {
  describe(`HTTP basics on ${dialect.name}`, () => {
    let t: TestApp
    const logs = new LogCapture()
    before(async () => {
      t = await startApp(dialect, {}, { logStream: logs })
    })
    after(() => t.close())

    test('errors are problem documents: unknown route, malformed JSON, oversize body, wrong method', async () => {
      const s = await signedIn(t.app)
      const cases = [
        { method: 'GET', url: '/nope', status: 404, code: 'ROUTE_NOT_FOUND' },
        { method: 'PATCH', url: '/account/login/', status: 404, code: 'ROUTE_NOT_FOUND' },
        {
          method: 'POST',
          url: '/account/login/',
          payload: '{"username":',
          headers: { 'content-type': 'application/json' },
          status: 400,
          code: 'MALFORMED_JSON',
        },
        {
          method: 'POST',
          url: '/account/login/',
          payload: JSON.stringify({ username: 'a', password: 'x'.repeat(2 * 1024 * 1024) }),
          headers: { 'content-type': 'application/json' },
          status: 413,
          code: 'PAYLOAD_TOO_LARGE',
        },
        {
          method: 'POST',
          url: '/account/login/',
          payload: '{"__proto__": {"admin": true}, "username": "a", "password": "b"}',
          headers: { 'content-type': 'application/json' },
          status: 400,
          code: 'MALFORMED_JSON',
        },
        {
          method: 'POST',
          url: '/account/login/',
          payload: JSON.stringify({ username: 'a', password: 'b', extra: 1 }),
          headers: { 'content-type': 'application/json' },
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          method: 'GET',
          url: '/file/dir/private/a%2F..%2F..%2Fetc',
          headers: s.headers,
          status: 400,
          code: 'VALIDATION_FAILED',
        },
      ] as const
      for (const c of cases) {
        const res = await t.app.inject({
          method: c.method,
          url: c.url,
          ...('payload' in c ? { payload: c.payload } : {}),
          headers: 'headers' in c ? c.headers : {},
        })
        assert.equal(res.statusCode, c.status, `${c.method} ${c.url}: ${res.body.slice(0, 200)}`)
        const body = problemOf(res)
        assert.deepEqual(Object.keys(body).sort(), ['code', 'detail', 'status', 'success', 'title'])
        assert.equal(body.code, c.code)
        assert.equal(body.status, c.status)
        assert.equal(body.success, false)
      }
    })

    test('text holding U+0000 is a 400 on every dialect: JSON bodies, paths and query strings', async () => {
      const s = await signedIn(t.app)
      const file = await uploadFile(t.app, s.headers, { name: 'nul.stl' })
      const cases = [
        { method: 'POST', url: '/annotation/create/', payload: { file: file._id, name: 'a\u0000b' } },
        { method: 'POST', url: '/file/configuration/', payload: { file: file._id, name: 'a\u0000b' } },
        {
          method: 'POST',
          url: '/scene/attributes',
          payload: { file: file._id, nodeIdToAttributes: { 'n\u0000': { color: 'red' } } },
        },
        {
          method: 'POST',
          url: `/file/${file._id}/share`,
          payload: { email: 'x\u0000@example.com', role: 'viewer' },
        },
        { method: 'DELETE', url: `/file/${file._id}/share/x%00@example.com` },
        { method: 'GET', url: '/file/dir/private/a%00b' },
        { method: 'GET', url: `/annotation/?file=${file._id}%00` },
      ] as const
      for (const c of cases) {
        const res = await t.app.inject({ ...c, headers: s.headers })
        assert.equal(res.statusCode, 400, `${c.method} ${c.url}: ${res.body}`)
        assert.equal(problemOf(res).code, 'VALIDATION_FAILED')
      }
      // A literal backslash-u in text is not a NUL and is stored as sent.
      const literal = await t.app.inject({
        method: 'POST',
        url: '/annotation/create/',
        headers: s.headers,
        payload: { file: file._id, name: 'C:\\u0000' },
      })
      assert.equal(literal.statusCode, 200, literal.body)
      assert.equal(literal.json().annotation.name, 'C:\\u0000')
    })

    test('healthz, readyz and JWKS answer without auth; request IDs are echoed', async () => {
      assert.deepEqual((await t.app.inject({ url: '/healthz' })).json(), { success: true })
      assert.deepEqual((await t.app.inject({ url: '/readyz' })).json(), { success: true })
      const jwks = (await t.app.inject({ url: '/.well-known/jwks.json' })).json()
      assert.equal(jwks.keys[0].alg, 'RS256')
      assert.equal(jwks.keys[0].kty, 'RSA')
      assert.ok(jwks.keys[0].kid)
      assert.equal(jwks.keys[0].d, undefined, 'no private part')
      const res = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'req-123' } })
      assert.equal(res.headers['x-request-id'], 'req-123')
      assert.match(
        String((await t.app.inject({ url: '/healthz' })).headers['x-request-id']),
        /^[0-9a-f-]{36}$/,
      )
    })

    test('OpenAPI 3.1 is served at /openapi.json and rendered at /docs', async () => {
      const doc = (await t.app.inject({ url: '/openapi.json' })).json()
      assert.equal(doc.openapi, '3.1.0')
      for (const path of ['/account/login/', '/account/session', '/file/dir/private/'])
        assert.ok(doc.paths[path], path)
      assert.deepEqual(doc.paths['/account/login/'].post.security, [])
      assert.ok(doc.components.schemas.Problem)
      const docs = await t.app.inject({ url: '/docs/' })
      assert.equal(docs.statusCode, 200)
      assert.match(docs.body, /swagger-ui/i)
    })

    test('no token, session token or password ever appears in a log line', async () => {
      const s = await signedIn(t.app)
      await t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: s.headers })
      await t.app.inject({
        method: 'GET',
        url: '/file/dir/private/',
        headers: { cookie: `jsonwebtoken=${s.authToken}; X-Service-Session=${s.sessionToken}` },
      })
      await t.app.inject({ method: 'PUT', url: '/account/session', headers: s.headers })
      assert.ok(logs.lines.length > 5, 'requests were logged')
      assert.ok(
        logs.lines.some((l) => l.includes('"reqId"')),
        'log lines carry request IDs',
      )
      for (const line of logs.lines) {
        for (const secret of [s.authToken, s.sessionToken, PASSWORD]) {
          assert.ok(!line.includes(secret), `secret in log line: ${line.slice(0, 120)}`)
        }
      }
    })
  })
}
