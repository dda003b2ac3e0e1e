// Every list endpoint refuses a malformed cursor with 400 INVALID_CURSOR, on every dialect, before
// it reaches SQL: `AAAA` decodes to NUL bytes (a 500 on PostgreSQL, which refuses U+0000 in text),
// `%00` is NUL itself, control characters and over-long cursors are refused alike, and a key that
// no stored row can have (a file name with a control character, an ID that is not one). Cursors
// the endpoints answered still page.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createAccount } from '../../src/modules/accounts/index.ts'
import { login, newAccount, openSession, PASSWORD } from '../support/api.ts'
import { insertFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { register } from '../support/receiver.ts'

const encoded = (key: string) => Buffer.from(key, 'utf8').toString('base64url')

/** Malformed on every endpoint, as they go into a query string. */
const MALFORMED: Record<string, string> = {
  'AAAA (NUL bytes encoded)': 'AAAA',
  '%00 (NUL itself)': '%00',
  'NUL after a valid start': `${encoded('f0.stl')}%00`,
  'control characters': '%01%1F%7F',
  'a control character after base64url': `${encoded('f0.stl')}%0A`,
  'not base64url': '%2B%2F%3D',
  'not canonical base64url': 'Zm9vY',
  'over-long': 'A'.repeat(5000),
  'NUL inside a longer key': encoded('abc\u0000def'),
}

/** Refused where the key cannot hold it (file names, IDs); a node ID may be any text but NUL. */
const NOT_A_STORED_KEY: Record<string, string> = {
  'an encoded control character': encoded('f\u0001.stl'),
  'an encoded 24-hex ID with a line break': encoded(`${'a'.repeat(23)}\n`),
}

for (const dialect of dialects()) {
  describe(`list endpoint cursors on ${dialect.name}`, () => {
    let t: TestApp
    let m: Team
    let adminHeaders: Record<string, string>
    let endpoints: { name: string; url: (cursor: string) => string; headers: () => Record<string, string> }[]
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
      m = await team(t.app)
      for (const name of ['f0.stl', 'f1.stl']) {
        await insertFileRow(t.app, m.owner.account.id, { name, parent: '/dir' })
        await insertFileRow(t.app, m.owner.account.id, { name })
      }
      const webhookId = await register(t.app, m.owner.authToken, 'file_uploaded', 'http://127.0.0.1:9/hook')
      const admin = await createAccount(t.app.ctx, {
        email: 'cursor-admin@example.com',
        username: 'cursor-admin',
        password: PASSWORD,
        admin: true,
      })
      const adminToken = await login(t.app, admin.username)
      adminHeaders = {
        authorization: `Bearer ${adminToken}`,
        'x-service-session': await openSession(t.app, adminToken),
      }
      const owner = () => m.owner.headers
      const viewer = () => m.viewer.headers
      endpoints = [
        { name: 'GET /file/dir/private/', url: (c) => `/file/dir/private/?cursor=${c}`, headers: owner },
        {
          name: 'GET /file/dir/private/?path= (folders)',
          url: (c) => `/file/dir/private/?path=/dir&cursor=${c}`,
          headers: owner,
        },
        {
          name: 'GET /file/dir/private/dir',
          url: (c) => `/file/dir/private/dir?cursor=${c}`,
          headers: owner,
        },
        { name: 'GET /file/dir/shared/', url: (c) => `/file/dir/shared/?cursor=${c}`, headers: viewer },
        {
          name: 'GET /scene/attributes',
          url: (c) => `/scene/attributes?file=${m.fileId}&cursor=${c}`,
          headers: owner,
        },
        { name: 'GET /annotation/', url: (c) => `/annotation/?file=${m.fileId}&cursor=${c}`, headers: owner },
        {
          name: 'GET /file/configuration/',
          url: (c) => `/file/configuration/?file=${m.fileId}&cursor=${c}`,
          headers: owner,
        },
        {
          name: 'GET /webhook/:id/deliveries',
          url: (c) => `/webhook/${webhookId}/deliveries?cursor=${c}`,
          headers: owner,
        },
        {
          name: 'GET /admin/accounts',
          url: (c) => `/admin/accounts?cursor=${c}`,
          headers: () => adminHeaders,
        },
      ]
      // More accounts than one page of two, for the admin listing's paging below.
      for (let i = 0; i < 2; i++) await newAccount(t.app, 'cursor')
    })
    after(() => t.close())

    const get = (url: string, headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url, headers })

    function assertInvalidCursor(res: Awaited<ReturnType<typeof get>>, what: string): void {
      assert.equal(res.statusCode, 400, `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`)
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what)
      assert.equal(res.json().code, 'INVALID_CURSOR', `${what}: ${res.body.slice(0, 300)}`)
    }

    test('a malformed cursor is 400 INVALID_CURSOR on every list endpoint', async () => {
      for (const endpoint of endpoints) {
        for (const [kind, cursor] of Object.entries(MALFORMED)) {
          assertInvalidCursor(
            await get(endpoint.url(cursor), endpoint.headers()),
            `${endpoint.name}, ${kind}`,
          )
        }
      }
    })

    test('a cursor whose key no stored row can have is 400 INVALID_CURSOR; a node ID may be any text', async () => {
      for (const endpoint of endpoints) {
        for (const [kind, cursor] of Object.entries(NOT_A_STORED_KEY)) {
          const res = await get(endpoint.url(cursor), endpoint.headers())
          if (endpoint.name === 'GET /scene/attributes') {
            // Clients name nodes freely: a page may end at a node ID holding a control character.
            assert.equal(res.statusCode, 200, `${kind}: ${res.body}`)
          } else assertInvalidCursor(res, `${endpoint.name}, ${kind}`)
        }
      }
    })

    test('cursors the endpoints answered still page', async () => {
      const walk = async (first: string, headers: Record<string, string>, key: string) => {
        const seen: unknown[] = []
        let next: string | null = null
        do {
          const res = await get(next === null ? first : `${first}&cursor=${next}`, headers)
          assert.equal(res.statusCode, 200, res.body)
          const body = res.json() as Record<string, unknown> & { nextCursor: string | null }
          seen.push(...(body[key] as unknown[]))
          next = body.nextCursor
        } while (next !== null)
        return seen
      }
      const names = (files: unknown[]) => files.map((f) => (f as { name: string }).name)
      assert.deepEqual(names(await walk('/file/dir/private/dir?limit=1', m.owner.headers, 'files')), [
        'f0.stl',
        'f1.stl',
      ])
      const accounts = await walk('/admin/accounts?limit=2', adminHeaders, 'accounts')
      const total = await t.db.kysely
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      assert.equal(accounts.length, Number(total.n))
      const nodes = { 'n\u0001a': { v: 1 }, 'n\u0001b': { v: 2 }, n2: { v: 3 } }
      const write = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: m.owner.headers,
        payload: { file: m.fileId, nodeIdToAttributes: nodes },
      })
      assert.equal(write.statusCode, 200, write.body)
      const pages: string[] = []
      let next: string | null = null
      do {
        const cursor: string = next === null ? '' : `&cursor=${next}`
        const res = await get(`/scene/attributes?file=${m.fileId}&limit=1${cursor}`, m.owner.headers)
        assert.equal(res.statusCode, 200, res.body)
        const body = res.json() as { nodeIdToAttributes: Record<string, unknown>; nextCursor: string | null }
        pages.push(...Object.keys(body.nodeIdToAttributes))
        next = body.nextCursor
      } while (next !== null)
      assert.deepEqual(pages, ['n\u0001a', 'n\u0001b', 'n2'])
    })
  })
}
