// Random bodies, queries, path parameters and credentials against every route of the API, as listed by
// the app's own OpenAPI document (app.swagger()), so a new route is fuzzed without touching this file:
// whatever arrives, the answer is a 2xx/3xx or a 4xx problem document with a `code`, never a 5xx.
// Most runs are made as a real signed-in user whose file, webhook and delivery the random IDs may
// name; the others carry no credentials, a garbage token, an auth token without a session, or cookies.
// fast-check with a fixed seed per route (override with TESSERA_FUZZ_SEED); a failure prints the seed
// and the shrunk request.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { openSession, signedIn } from '../support/api.ts'
import { type FormPart, multipart, uploadFile } from '../support/files.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { Receiver, register, until } from '../support/receiver.ts'

const SEED = Number(process.env.TESSERA_FUZZ_SEED ?? 4_2024)
const RUNS_PER_ROUTE = Number(process.env.TESSERA_FUZZ_RUNS ?? 20)
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
type Method = (typeof METHODS)[number]

interface Operation {
  method: Method
  /** OpenAPI path: `{name}` parameters, `{*}` for the wildcard. */
  path: string
}

type OpenApiOperation = { responses?: Record<string, { content?: Record<string, unknown> }> }

/**
 * Every operation of the OpenAPI document, /docs assets excluded, and streams too: a
 * text/event-stream answer never ends, so app.inject would wait for ever (event-stream.test.ts
 * reads it incrementally).
 */
function operationsOf(t: TestApp): Operation[] {
  const doc = t.app.swagger() as { paths?: Record<string, Partial<Record<string, OpenApiOperation>>> }
  const streams = (op: OpenApiOperation) => 'text/event-stream' in (op.responses?.['200']?.content ?? {})
  return (
    Object.entries(doc.paths ?? {})
      .filter(([path]) => !path.startsWith('/docs'))
      .flatMap(([path, item]) =>
        METHODS.filter((m) => item[m] !== undefined && !streams(item[m])).map((method) => ({ method, path })),
      )
      // The specification's sub-folder listing, hidden from the document (files/listing/routes.ts), still answers.
      .concat([{ method: 'get', path: '/file/dir/private/{*}' }])
  )
}

type Actor = 'user' | 'cookies' | 'none' | 'garbage' | 'tokenOnly'

interface Fixtures {
  fileId: string
  webhookId: string
  deliveryId: string
  otherEmail: string
  receiverUrl: string
}

interface RandomRequest {
  actor: Actor
  params: string[]
  wildcard: string[]
  query: string
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; contentType: string | undefined; text: string }
    | { kind: 'multipart'; parts: FormPart[]; cut: number | null }
}

function requestArbitrary(f: Fixtures, paramCount: number): fc.Arbitrary<RandomRequest> {
  const id = fc.constantFrom(
    f.fileId,
    f.webhookId,
    f.deliveryId,
    'ffffffffffffffffffffffff',
    '0'.repeat(24),
    '',
    'x',
    '1',
    '-1',
    '9'.repeat(30),
  )
  // Printable ASCII, any grapheme, and any code point (NUL, controls, lone surrogates).
  const text = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.constantFrom('a\u0000b', '\u0000', '\r\n', '\u202e'),
  )
  // A path segment: a known ID, an e-mail, or random text (encoded), or a raw nasty one.
  const segment = fc.oneof(
    { arbitrary: id, weight: 4 },
    { arbitrary: fc.constantFrom(f.otherEmail, 'nobody@example.com', 'not-an-email'), weight: 1 },
    { arbitrary: text.map(encodeURIComponent), weight: 3 },
    { arbitrary: fc.constantFrom('..', '%2e%2e', '%00', '%', '%zz', '%2F', 'a'.repeat(600)), weight: 1 },
  )
  const field = fc.constantFrom(
    'file',
    '_id',
    'id',
    'name',
    'parent',
    'nodeIdToAttributes',
    'permissions',
    'readPermissions',
    'writePermissions',
    'tags',
    'zNear',
    'upVector',
    '__v',
    'event',
    'url',
    'secretToken',
    'enabled',
    'active',
    'email',
    'role',
    'username',
    'password',
    'limit',
    'offset',
    'status',
    'cursor',
  )
  const value = fc.oneof(
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
    { arbitrary: id, weight: 3 },
    {
      arbitrary: fc.constantFrom(
        f.receiverUrl,
        'http://127.0.0.1:1/refused',
        'ftp://127.0.0.1/x',
        f.otherEmail,
        'editor',
        'viewer',
        'owner',
        'file_uploaded',
        'annotation_created',
        'no_such_event',
        'correct horse battery staple',
      ),
      weight: 2,
    },
  )
  const query = fc.oneof(
    { arbitrary: fc.constant(''), weight: 1 },
    {
      arbitrary: fc
        .array(fc.tuple(fc.oneof(field, text), fc.oneof(id, text, value.map(JSON.stringify))), {
          maxLength: 4,
        })
        .map((pairs) =>
          new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, String(v)])).toString(),
        ),
      weight: 4,
    },
    { arbitrary: fc.constantFrom('%', 'a=%zz', '&&&=', 'file[]=1&file[]=2', '_id=1&_id=2'), weight: 1 },
  )
  const part: fc.Arbitrary<FormPart> = fc.oneof(
    fc.record({ name: fc.oneof(fc.constantFrom('file', 'parent'), text), value: fc.oneof(text, id) }),
    fc.record(
      {
        name: fc.oneof({ arbitrary: fc.constant('file'), weight: 3 }, { arbitrary: text, weight: 1 }),
        filename: fc.oneof(
          fc.constantFrom('a.stl', '../../../etc/passwd', 'dir/x.glb', '\u202eevil.stl', 'x'.repeat(300), ''),
          text,
        ),
        data: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
        contentType: fc.constantFrom('application/octet-stream', 'model/stl', 'text/plain', ''),
      },
      { requiredKeys: ['name', 'data'] },
    ),
  )
  const contentType = fc.constantFrom(
    undefined,
    'application/json',
    'application/json; charset=latin1',
    'text/plain',
    'application/octet-stream',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=x',
    'garbage',
  )
  const body: fc.Arbitrary<RandomRequest['body']> = fc.oneof(
    { arbitrary: fc.constant({ kind: 'none' as const }), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ kind: 'json' as const, value: v })), weight: 2 },
    {
      arbitrary: fc
        .dictionary(field, value, { maxKeys: 6 })
        .map((v) => ({ kind: 'json' as const, value: v })),
      weight: 4,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('raw' as const),
        contentType,
        text: fc.oneof(text, fc.constantFrom('{', '{"a":', '[1,', '{"__proto__":{"x":1}}', 'null', '""')),
      }),
      weight: 2,
    },
    {
      arbitrary: fc.record({
        kind: fc.constant('multipart' as const),
        parts: fc.array(part, { maxLength: 3 }),
        cut: fc.option(fc.nat({ max: 200 }), { freq: 4 }),
      }),
      weight: 2,
    },
  )
  return fc.record({
    actor: fc.oneof(
      { arbitrary: fc.constant<Actor>('user'), weight: 8 },
      { arbitrary: fc.constantFrom<Actor>('cookies', 'none', 'garbage', 'tokenOnly'), weight: 2 },
    ),
    params: fc.array(segment, { minLength: paramCount, maxLength: paramCount }),
    wildcard: fc.array(fc.oneof(segment, fc.constantFrom('a', 'b', '')), { maxLength: 4 }),
    query,
    body,
  })
}

for (const dialect of dialects()) {
  describe(`every route under random input on ${dialect.name}`, () => {
    let t: TestApp
    const rx = new Receiver()
    let me: Awaited<ReturnType<typeof signedIn>>
    let f: Fixtures

    /** A real file, a webhook on the loopback receiver and one of its deliveries, owned by `me`. */
    let made = 0
    async function makeFixtures(otherEmail: string): Promise<Fixtures> {
      made += 1
      const receiverUrl = `${rx.base}/fuzz-${made}`
      const webhookId = await register(t.app, me.authToken, 'file_uploaded', receiverUrl)
      const file = await uploadFile(t.app, me.headers, { name: `fuzz-${Date.now()}.stl` })
      const delivery = await until('a delivery', () =>
        t.db.kysely
          .selectFrom('deliveries')
          .select('id')
          .where('webhook_id', '=', webhookId)
          .executeTakeFirst(),
      )
      return { fileId: file._id, webhookId, deliveryId: String(delivery.id), otherEmail, receiverUrl }
    }

    before(async () => {
      await rx.start()
      t = await startApp(dialect, { licenses: 1000, webhookRetryScheduleMs: [0] })
      me = await signedIn(t.app, 'fuzz')
      const other = await signedIn(t.app, 'other')
      f = await makeFixtures(other.account.email)
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    function headersOf(actor: Actor): Record<string, string> {
      switch (actor) {
        case 'user':
          return { ...me.headers }
        case 'cookies':
          return { cookie: `jsonwebtoken=${me.authToken}; X-Service-Session=${me.sessionToken}` }
        case 'none':
          return {}
        case 'garbage':
          return { authorization: 'Bearer not.a.jwt', 'x-service-session': 'garbage' }
        case 'tokenOnly':
          return { authorization: `Bearer ${me.authToken}` }
      }
    }

    function send(op: Operation, r: RandomRequest): Promise<LightMyRequestResponse> {
      let p = 0
      const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        name === '*' ? r.wildcard.join('/') : (r.params[p++] ?? ''),
      )
      const url = r.query ? `${path}?${r.query}` : path
      const headers = headersOf(r.actor)
      let payload: string | Buffer | undefined
      if (r.body.kind === 'json') {
        headers['content-type'] = 'application/json'
        payload = JSON.stringify(r.body.value) ?? ''
      } else if (r.body.kind === 'raw') {
        if (r.body.contentType !== undefined) headers['content-type'] = r.body.contentType
        payload = r.body.text
      } else if (r.body.kind === 'multipart') {
        const form = multipart(r.body.parts)
        headers['content-type'] = form.contentType
        payload = r.body.cut === null ? form.body : form.body.subarray(0, r.body.cut)
      }
      return t.app.inject({ method: op.method.toUpperCase() as Uppercase<Method>, url, headers, payload })
    }

    /** Random calls may delete the fixtures or replace the session: put them back. */
    async function repair(op: Operation, res: LightMyRequestResponse): Promise<void> {
      if (res.statusCode >= 300) return
      if (op.method === 'post' && op.path === '/account/session') {
        me.sessionToken = (res.json() as { jwt: string }).jwt
        me.headers['x-service-session'] = me.sessionToken
      }
      // Both end the session: take a new one (logout answers 200 even when nothing was ended).
      if ((op.method === 'delete' && op.path === '/account/session') || op.path === '/account/logout') {
        me.sessionToken = await openSession(t.app, me.authToken)
        me.headers['x-service-session'] = me.sessionToken
      }
      if (op.method === 'delete' && /^\/(file|webhook)\/\{id\}$/.test(op.path)) {
        f = await makeFixtures(f.otherEmail)
      }
    }

    test('the route list comes from the OpenAPI document and covers the whole API', () => {
      const ops = operationsOf(t).map((o) => `${o.method.toUpperCase()} ${o.path}`)
      for (const expected of [
        'POST /account/login/',
        'POST /account/session',
        'PUT /account/session',
        'DELETE /account/session',
        'POST /file/upload/',
        'GET /file/dir/private/{*}',
        'DELETE /file/{id}/share/{email}',
        'PATCH /webhook/{id}',
        'GET /webhook/{id}/deliveries/{deliveryId}',
        'POST /webhook/{id}/deliveries/{deliveryId}/retry',
        'POST /webhook/{id}/recover',
        'POST /webhook/{id}/test',
        'POST /scene/attributes',
        'POST /annotation/create/',
        'DELETE /file/configuration/',
      ]) {
        assert.ok(ops.includes(expected), `${expected} missing from ${ops.join(', ')}`)
      }
      assert.ok(ops.length >= 30, ops.join(', '))
    })

    test('no random request to any route yields a 5xx; every 4xx is a problem document', async () => {
      const ops = operationsOf(t)
      for (const [index, op] of ops.entries()) {
        const paramCount = (op.path.match(/\{(?!\*)[^}]+\}/g) ?? []).length
        const seed = SEED + index
        await fc.assert(
          fc.asyncProperty(requestArbitrary(f, paramCount), async (r) => {
            const res = await send(op, r)
            const what = `${op.method.toUpperCase()} ${op.path} (seed ${seed}) ${JSON.stringify(r)} → ${res.statusCode} ${res.body.slice(0, 500)}`
            assert.ok(res.statusCode < 500, what)
            if (res.statusCode >= 400) {
              assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what)
              const problem = res.json() as { status?: unknown; code?: unknown; success?: unknown }
              assert.equal(typeof problem.code, 'string', what)
              assert.equal(problem.status, res.statusCode, what)
              assert.equal(problem.success, false, what)
            }
            await repair(op, res)
          }),
          { numRuns: RUNS_PER_ROUTE, seed, includeErrorInReport: true },
        )
      }
    })
  })
}
