// The statuses openapi.json declares are the ones the routes answer: a spot-check of error paths
// (credentials, missing records, conflicts, refused formats, ranges, admin-only routes), each
// answer matched to its operation in the document and its status looked up there.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { OPENAPI_FILE } from '../../scripts/openapi.ts'
import { PASSWORD, signedIn } from '../support/api.ts'
import { postForm, uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>
}
const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
  paths: Record<string, Record<string, Operation>>
}

/** The document's operation for a request, by method and path (`{name}` matching one segment). */
function operationOf(method: string, url: string): [string, Operation] | undefined {
  const path = url.split('?')[0] ?? ''
  for (const [pattern, item] of Object.entries(document.paths)) {
    const regex = new RegExp(`^${pattern.replace(/\{[^}]+\}/g, '[^/]+')}$`)
    const op = item[method.toLowerCase()]
    if (op && regex.test(path)) return [`${method} ${pattern}`, op]
  }
  return undefined
}

const sqlite = dialects()[0]
let t: TestApp
before(async () => {
  if (!sqlite) throw new Error('no dialect')
  t = await startApp(sqlite)
})
after(() => t?.close())

test('every status seen on these error paths is declared by its operation, as a problem document', async () => {
  const seen: Array<{ method: string; url: string; res: LightMyRequestResponse }> = []
  const send = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options: object = {}) => {
    const res = await t.app.inject({ method, url, ...options })
    seen.push({ method, url, res })
    return res
  }
  const owner = await signedIn(t.app, 'owner')
  const other = await signedIn(t.app, 'other')
  const json = { 'content-type': 'application/json' }
  const file = await uploadFile(t.app, owner.headers, { name: 'part.stl', parent: '/spot' })

  await send('GET', '/file/dir/private/') // 401: no credentials
  await send('POST', '/account/login/', { payload: { username: owner.account.username, password: 'wrong' } })
  await send('PUT', '/account/password', {
    headers: { ...owner.headers, ...json },
    payload: { currentPassword: 'wrong', newPassword: `${PASSWORD} but longer` },
  })
  await send('GET', '/file/665f1c2e8a4b3c0012a1b2c3', { headers: owner.headers }) // 404
  await send('GET', `/file/${file._id}`, { headers: other.headers }) // 404 for a stranger
  await send('GET', `/file/${file._id}/optimized`, { headers: owner.headers }) // 409 NOT_READY
  await send('GET', `/file/${file._id}/scene-tree`, { headers: owner.headers }) // 409 NOT_READY
  await send('GET', `/file/${file._id}/download`, { headers: { ...owner.headers, range: 'bytes=99999-' } })
  const refused = await postForm(t.app, owner.headers, [
    { name: 'file', filename: 'notes.txt', data: Buffer.from('x') },
  ])
  seen.push({ method: 'POST', url: '/file/upload/', res: refused })
  const created = await send('POST', '/annotation/create/', {
    headers: { ...owner.headers, ...json },
    payload: { file: file._id, name: 'n' },
  })
  const annotation = (created.json() as { annotation: { _id: string } }).annotation
  await send('POST', '/annotation/update/', {
    headers: { ...owner.headers, ...json },
    payload: { _id: annotation._id, __v: 7, name: 'stale' },
  })
  await send('GET', '/admin/accounts', { headers: owner.headers }) // 403: not an administrator
  await send('DELETE', '/webhook/665f1c2e8a4b3c0012a1b2c3', { headers: owner.headers })
  await send('POST', '/scene/attributes', { headers: owner.headers, payload: 'x' }) // 415: text/plain

  const statuses = new Set<number>()
  for (const { method, url, res } of seen) {
    const found = operationOf(method, url)
    assert.ok(found, `${method} ${url} is in the document`)
    const [where, op] = found
    statuses.add(res.statusCode)
    const declared = op.responses[String(res.statusCode)]
    assert.ok(declared, `${where} answered ${res.statusCode} (${res.body.slice(0, 120)}), not declared`)
    if (res.statusCode >= 400) {
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/)
      assert.deepEqual(Object.keys(declared.content ?? {}), ['application/problem+json'], where)
    }
  }
  // The spot-check reached the error statuses it is about.
  for (const status of [401, 403, 404, 409, 415, 416]) assert.ok(statuses.has(status), `saw ${status}`)
})
