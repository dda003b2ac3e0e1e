// Fuzz (`npm run fuzz`, not part of `npm test`): random requests against every operation of the
// app's own OpenAPI document, in process through `app.inject`, on SQLite and (with
// TESSERA_TEST_DATABASE_URL) PostgreSQL. Bodies, queries and path parameters are drawn from the
// operation's own schemas (schema-aware: valid-looking requests that reach the services) mixed
// with garbage (any JSON, raw text, wrong content types, broken multipart, hostile strings), under
// random credentials, headers and cookies. The property: no answer is a 5xx. A failure prints the
// fast-check seed and the shrunk request.
//
//   npm run fuzz -- [--requests 100000] [--seed 42] [--dialect sqlite|postgres|both]
import { parseArgs } from 'node:util'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { signedIn } from '../packages/server/test/support/api.ts'
import { multipart, uploadFile } from '../packages/server/test/support/files.ts'
import { dialects, startApp, type TestApp } from '../packages/server/test/support/harness.ts'
import { Receiver, register } from '../packages/server/test/support/receiver.ts'
import { record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '42' },
    dialect: { type: 'string', default: 'both' },
  },
})

type Schema = Record<string, unknown>
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
type Method = (typeof METHODS)[number]

interface Operation {
  method: Method
  path: string
  params: Array<{ name: string; in: string; schema: Schema }>
  body: { type: string; schema: Schema } | undefined
}

interface Fixtures {
  ids: string[]
  headers: Record<string, string>
  authToken: string
  sessionToken: string
  receiverUrl: string
}

const HOSTILE = [
  '',
  '\u0000',
  'a\u0000b',
  '%00',
  '../..',
  '\u202e',
  'x'.repeat(5000),
  '{"a":',
  '💥',
  '\ud800',
]

/** An arbitrary for a JSON schema of the OpenAPI document; ids and URLs come from the fixtures. */
function fromSchema(schema: Schema, doc: Schema, f: Fixtures, depth = 0): fc.Arbitrary<unknown> {
  const ref = schema.$ref
  if (typeof ref === 'string') {
    const name = ref.split('/').at(-1) ?? ''
    const components = (doc.components as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {}
    const target = components[name]
    return target && depth < 4 ? fromSchema(target, doc, f, depth + 1) : fc.constant({})
  }
  const anyOf = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (anyOf) return fc.oneof(...anyOf.map((s) => fromSchema(s, doc, f, depth + 1)))
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  if ('const' in schema) return fc.constant(schema.const)
  switch (schema.type) {
    case 'object':
      return objectOf(schema, doc, f, depth)
    case 'array':
      return fc.array(fromSchema((schema.items as Schema) ?? {}, doc, f, depth + 1), {
        maxLength: Math.min(Number(schema.maxItems ?? 4), 6),
      })
    case 'integer':
      return fc.integer({ min: Number(schema.minimum ?? -10), max: Number(schema.maximum ?? 1_000_000) })
    case 'number':
      return fc.double({ noNaN: true, min: -1e6, max: 1e6 })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'string':
      return stringOf(schema, f)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

function objectOf(schema: Schema, doc: Schema, f: Fixtures, depth: number): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  const required = new Set((schema.required ?? []) as string[])
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [name, inner] of Object.entries(properties)) model[name] = fromSchema(inner, doc, f, depth + 1)
  if (Object.keys(model).length === 0)
    return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  // Now and then a required key is dropped or an unknown one added: near-valid requests.
  return fc.record(model, { requiredKeys: [...required].filter((k) => k in model) })
}

function stringOf(schema: Schema, f: Fixtures): fc.Arbitrary<string> {
  const options: fc.Arbitrary<string>[] = [fc.string({ maxLength: Number(schema.maxLength ?? 40) })]
  if (typeof schema.pattern === 'string') {
    try {
      options.push(fc.stringMatching(new RegExp(schema.pattern)))
    } catch {
      // A pattern JavaScript cannot compile is simply not used for generation.
    }
  }
  if (schema.format === 'date-time')
    options.push(fc.date().map((d) => (Number.isNaN(d.getTime()) ? '' : d.toISOString())))
  options.push(fc.constantFrom(...f.ids, f.receiverUrl, 'http://127.0.0.1:1/x', '/', '/a/b/'))
  return fc.oneof(...options)
}

const garbageBody = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => ({ kind: 'json' as const, value })),
  fc
    .record({
      contentType: fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'garbage',
        '',
      ),
      text: fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.constantFrom(...HOSTILE, '{"__proto__":{"x":1}}', '[', 'null'),
      ),
    })
    .map((raw) => ({ kind: 'raw' as const, ...raw })),
)

type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; contentType: string; text: string }
  | { kind: 'form'; value: unknown; cut: number | null }

function requestOf(op: Operation, doc: Schema, f: Fixtures) {
  const paramValue = (schema: Schema) =>
    fc.oneof(
      { arbitrary: fc.constantFrom(...f.ids), weight: 3 },
      { arbitrary: fromSchema(schema, doc, f).map(String), weight: 2 },
      {
        arbitrary: fc
          .constantFrom(...HOSTILE)
          .map((text) => (text === '\ud800' ? '%ED%A0%80' : encodeURIComponent(text))),
        weight: 1,
      },
    )
  const pathParams = op.params.filter((p) => p.in === 'path')
  const queryParams = op.params.filter((p) => p.in === 'query')
  const body: fc.Arbitrary<Body> = op.body
    ? fc.oneof(
        {
          arbitrary: fromSchema(op.body.schema, doc, f).map(
            (value): Body =>
              op.body?.type === 'multipart/form-data'
                ? { kind: 'form', value, cut: null }
                : { kind: 'json', value },
          ),
          weight: 4,
        },
        { arbitrary: garbageBody, weight: 2 },
        { arbitrary: fc.constant<Body>({ kind: 'none' }), weight: 1 },
      )
    : fc.oneof(
        { arbitrary: fc.constant<Body>({ kind: 'none' }), weight: 4 },
        { arbitrary: garbageBody, weight: 1 },
      )
  return fc.record({
    path: fc.tuple(...pathParams.map((p) => paramValue(p.schema))),
    query: fc.array(
      fc.oneof(
        ...queryParams.map((p) => fc.tuple(fc.constant(p.name), paramValue(p.schema))),
        fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 12 })),
      ),
      { maxLength: 4 },
    ),
    actor: fc.constantFrom('user', 'user', 'user', 'cookies', 'none', 'garbage', 'tokenOnly'),
    extraHeaders: fc.dictionary(
      fc.constantFrom(
        'accept',
        'accept-encoding',
        'range',
        'if-none-match',
        'x-forwarded-for',
        'origin',
        'cookie',
      ),
      fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom('bytes=0-0', 'bytes=9-1', '*/*', 'jsonwebtoken=x; a=b'),
      ),
      { maxKeys: 3 },
    ),
    body,
  })
}

function headersOf(actor: string, f: Fixtures): Record<string, string> {
  if (actor === 'user') return { ...f.headers }
  if (actor === 'cookies')
    return { cookie: `jsonwebtoken=${f.authToken}; X-Service-Session=${f.sessionToken}` }
  if (actor === 'garbage') return { authorization: 'Bearer not.a.jwt', 'x-service-session': 'garbage' }
  if (actor === 'tokenOnly') return { authorization: `Bearer ${f.authToken}` }
  return {}
}

type Drawn = ReturnType<typeof requestOf> extends fc.Arbitrary<infer T> ? T : never

function send(t: TestApp, op: Operation, r: Drawn, f: Fixtures): Promise<LightMyRequestResponse> {
  let url = op.path
  r.path.forEach((value, i) => {
    url = url.replace(/\{[^}]+\}/, String(value) === '' && i === 0 ? 'x' : String(value))
  })
  const query = new URLSearchParams(
    r.query.map(([k, v]): [string, string] => [String(k), String(v)]),
  ).toString()
  const headers: Record<string, string> = { ...r.extraHeaders, ...headersOf(r.actor, f) }
  const target = `${url}${query ? `?${query}` : ''}`
  const method = op.method.toUpperCase() as 'GET'
  const body = r.body
  if (body.kind === 'json') {
    const payload = JSON.stringify(body.value) ?? 'null'
    return t.app.inject({
      method,
      url: target,
      headers: { ...headers, 'content-type': 'application/json' },
      payload,
    })
  }
  if (body.kind === 'raw')
    return t.app.inject({
      method,
      url: target,
      headers: { ...headers, 'content-type': body.contentType },
      payload: body.text,
    })
  if (body.kind === 'form') {
    const fields = (body.value ?? {}) as Record<string, unknown>
    const form = multipart(
      Object.entries(fields).map(([name, value]) =>
        name === 'file'
          ? { name, filename: `${String(value).slice(0, 20)}.stl`, data: Buffer.from('solid x\n') }
          : { name, value: String(value) },
      ),
    )
    return t.app.inject({
      method,
      url: target,
      headers: { ...headers, 'content-type': form.contentType },
      payload: form.body,
    })
  }
  return t.app.inject({ method, url: target, headers })
}

function streams(spec: Schema): boolean {
  const ok = ((spec.responses ?? {}) as Record<string, Schema>)['200']
  return Object.keys((ok?.content ?? {}) as Record<string, unknown>).includes('text/event-stream')
}

function operationsOf(doc: Schema): Operation[] {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Schema>>
  return Object.entries(paths)
    .filter(([path]) => !path.startsWith('/docs'))
    .flatMap(([path, item]) =>
      // A stream (text/event-stream) never ends, so app.inject would wait for ever; its own tests
      // read it incrementally (test/stream/event-stream.test.ts).
      METHODS.filter((m) => item[m] && !streams(item[m] as Schema)).map((method) => {
        const spec = item[method] as Schema
        const content = ((spec.requestBody as Schema | undefined)?.content ?? {}) as Record<
          string,
          { schema: Schema }
        >
        const [type, media] = Object.entries(content)[0] ?? []
        return {
          method,
          path,
          params: (spec.parameters ?? []) as Operation['params'],
          body: type && media ? { type, schema: media.schema } : undefined,
        }
      }),
    )
}

async function fuzzDialect(dialect: ReturnType<typeof dialects>[number], total: number, seed: number) {
  const rx = new Receiver()
  await rx.start()
  const t = await startApp(dialect, {
    licenses: 100_000,
    webhookRetryScheduleMs: [0],
    webhookManageRate: 1_000_000,
    webhookTestRate: 1_000_000,
    loginMaxFailures: 1_000_000,
  })
  try {
    const me = await signedIn(t.app, 'fuzz')
    const receiverUrl = `${rx.base}/fuzz`
    const webhookId = await register(t.app, me.authToken, 'file_uploaded', receiverUrl)
    const file = await uploadFile(t.app, me.headers, { name: 'fuzz.stl' })
    const f: Fixtures = {
      ids: [file._id, webhookId, 'ffffffffffffffffffffffff', '0'.repeat(24)],
      headers: me.headers,
      authToken: me.authToken,
      sessionToken: me.sessionToken,
      receiverUrl,
    }
    const doc = t.app.swagger() as Schema
    const ops = operationsOf(doc)
    const perOp = Math.max(1, Math.ceil(total / ops.length))
    const started = performance.now()
    let sent = 0
    let serverErrors = 0
    for (const [index, op] of ops.entries()) {
      await fc.assert(
        fc.asyncProperty(requestOf(op, doc, f), async (r) => {
          const res = await send(t, op, r, f)
          sent += 1
          if (res.statusCode >= 500) {
            serverErrors += 1
            throw new Error(
              `${op.method.toUpperCase()} ${op.path} → ${res.statusCode} ${res.body.slice(0, 300)}`,
            )
          }
        }),
        { numRuns: perOp, seed: seed + index, endOnFailure: true },
      )
    }
    const seconds = (performance.now() - started) / 1000
    return { dialect: dialect.name, operations: ops.length, requests: sent, serverErrors, seconds }
  } finally {
    await t.close()
    await rx.stop()
  }
}

const total = Number(args.requests)
const seed = Number(args.seed)
const chosen = dialects().filter((d) => args.dialect === 'both' || d.name === args.dialect)
if (args.dialect !== 'sqlite' && !chosen.some((d) => d.name === 'postgres')) {
  console.log('PostgreSQL skipped: set TESSERA_TEST_DATABASE_URL to fuzz it too')
}
for (const dialect of chosen) {
  const result = await fuzzDialect(dialect, total, seed)
  console.log(
    `${result.dialect}: ${result.requests} requests over ${result.operations} operations in ` +
      `${result.seconds.toFixed(1)} s (${Math.round(result.requests / result.seconds)}/s), ${result.serverErrors} 5xx`,
  )
  const at = { dialect: result.dialect, requests: result.requests, operations: result.operations, seed }
  record('fuzz', [
    { metric: 'server_errors', value: result.serverErrors, unit: 'count', target: 0, ...at },
    { metric: 'time', value: Number(result.seconds.toFixed(1)), unit: 's', ...at },
  ])
}
