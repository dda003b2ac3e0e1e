// Every operation of openapi.json called with a link session, every dialect: each write answers 403
// (never 2xx, never 500), the reads a link opts into answer 2xx for its file (converted, so the GLB,
// thumbnail and scene tree exist) and 404 for another file, every other read 401/403/404 (a search
// is a read sent with POST: its conditions are a body). The
// operations that need no credentials at all (health, readiness, metrics, keys) are left out: they
// answer everyone alike. A new operation is covered without editing this file: it refuses guests
// unless its route opts in (modules/sessions/authenticate.ts), and then it must be listed here.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import { linkGuest, signedIn } from '../support/api.ts'
import { uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { stlCube } from '../support/models.ts'
import { until } from '../support/receiver.ts'

interface Operation {
  operationId: string
  parameters?: { name: string; in: string }[]
  security?: unknown[]
}
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

const document = JSON.parse(readFileSync(new URL('../../../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>
}

/** The reads a link session may make of its file (config `link: 'read'`, or `auth: 'link'`). */
const GUEST_READS = new Set([
  'getFile',
  'getFileThumbnail',
  'downloadOptimizedFile',
  'getSceneTree',
  'getSceneAttributes',
  'getSceneProperties',
  'searchScene',
  'searchFiles',
  'exportBcf',
  'listAnnotations',
  'listConfigurations',
  'listConfigurationThumbnails',
  'listReplies',
  'listDiscussions',
  'renewLinkSession',
])

function bodyOf(operationId: string, fileId: string): string {
  const body = POSTED_READS[operationId]
  return body ? JSON.stringify(body(fileId)) : '{}'
}

function operations() {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase() as Method, op })),
  )
}

/** Reads made with POST (a search's conditions are a body): their body about a file. */
const POSTED_READS: Record<string, (fileId: string) => unknown> = {
  searchScene: (file) => ({ file, where: [{ node: 'name', op: 'contains', value: 'a' }] }),
  searchFiles: () => ({ where: [{ node: 'name', op: 'contains', value: 'a' }] }),
}

/** Posted reads that name no file (a search across files): a guest's answers 2xx, about its file only. */
const ACROSS_FILES = new Set(['searchFiles'])

/** An annotation on each file (open to everyone), for the operations that take `annotation`. */
const annotationOf = new Map<string, string>()

/**
 * The operation's URL about `fileId`: path parameters filled, `file` (or `annotation`: one on that
 * file) in the query when it takes one.
 */
function urlOf(path: string, op: Operation, fileId: string): string {
  const url = path
    .replace('{id}', fileId)
    .replace('{v}', '1')
    .replace('{email}', 'someone@example.com')
    .replace('{deliveryId}', '0123456789abcdef01234567')
  const takes = (name: string) => (op.parameters ?? []).some((p) => p.in === 'query' && p.name === name)
  if (takes('file')) return `${url}?file=${fileId}`
  if (takes('annotation')) return `${url}?annotation=${annotationOf.get(fileId)}`
  return url
}

for (const dialect of dialects()) {
  describe(`every operation with a link session on ${dialect.name}`, () => {
    let t: TestApp
    let linked: string
    let other: string
    let guest: Record<string, string>

    before(async () => {
      t = await startApp(dialect, { licenses: 20, linkSessionRate: 10_000 }, { conversions: true })
      const owner = await signedIn(t.app)
      const upload = (name: string) => uploadFile(t.app, owner.headers, { name, data: stlCube(name, 0.05) })
      linked = (await upload('linked.stl'))._id
      other = (await upload('other.stl'))._id
      for (const id of [linked, other]) {
        await until(
          `${id} converted`,
          async () => {
            const res = await t.app.inject({ method: 'GET', url: `/file/${id}`, headers: owner.headers })
            return res.json().file.state === 'ready'
          },
          120_000,
        )
      }
      for (const file of [linked, other]) {
        const note = await t.app.inject({
          method: 'POST',
          url: '/annotation/create/',
          headers: owner.headers,
          payload: { file, name: 'Open to all', content: 'with a reply' },
        })
        assert.equal(note.statusCode, 200, note.body)
        annotationOf.set(file, note.json().annotation._id)
      }
      guest = await linkGuest(t.app, owner.headers, linked)
    })
    after(() => t.close())

    test('writes 403, the link’s reads 2xx for its file and 404 for another, other reads 401/403/404', async () => {
      const seen: string[] = []
      for (const { path, method, op } of operations()) {
        const isPublicRead = method === 'GET' && Array.isArray(op.security) && op.security.length === 0
        if (isPublicRead) continue
        seen.push(op.operationId)
        for (const fileId of [linked, other]) {
          const res = await t.app.inject({
            method,
            url: urlOf(path, op, fileId),
            headers: { ...guest, 'content-type': 'application/json' },
            ...(method === 'GET' || method === 'DELETE' ? {} : { payload: bodyOf(op.operationId, fileId) }),
          })
          const what = `${method} ${path} (${op.operationId}, ${fileId === linked ? 'linked' : 'other'} file): ${res.statusCode} ${res.body.slice(0, 200)}`
          assert.ok(res.statusCode < 500, what)
          const read = method === 'GET' || op.operationId in POSTED_READS
          if (!read) {
            assert.equal(res.statusCode, 403, what)
            assert.equal(res.json().code, 'LINK_READ_ONLY', what)
          } else if (!GUEST_READS.has(op.operationId)) {
            assert.ok([401, 403, 404].includes(res.statusCode), what)
          } else if (
            fileId === linked ||
            ACROSS_FILES.has(op.operationId) ||
            (!path.includes('{id}') &&
              !(op.operationId in POSTED_READS) &&
              !(op.parameters ?? []).some((p) => ['file', 'annotation'].includes(p.name)))
          ) {
            assert.ok(res.statusCode >= 200 && res.statusCode < 300, what)
          } else {
            assert.equal(res.statusCode, 404, what)
          }
        }
      }
      for (const id of GUEST_READS) assert.ok(seen.includes(id), `${id} is an operation of openapi.json`)
      assert.ok(seen.length > 40, `${seen.length} operations walked`)
    })
  })
}
