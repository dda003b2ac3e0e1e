// The OpenAPI document as a product: Redocly's `recommended` ruleset finds nothing in it, each rule
// switched off says why, and every example in it conforms to its schema.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { createConfig, lint } from '@redocly/openapi-core'
import { OPENAPI_FILE } from '../../scripts/openapi.ts'

/** The rules of `recommended` this document does not follow, each with the reason. */
const RULES_OFF = {
  // The specification Tessera implements spells these paths with a trailing `/` (`/file/upload/`,
  // `/annotation/create/`, …), and its clients call them so.
  'no-path-trailing-slash': 'off',
  // /healthz, /readyz and the JWKS take no input and no credentials: they answer no client error,
  // and declaring one would be false.
  'operation-4xx-response': 'off',
  // FileRecord is the record inside webhook payloads: the `webhooks` section inlines it (the
  // document declares each $id once), and SDKs type event data with the named component.
  'no-unused-components': 'off',
} as const

test('openapi.json passes Redocly recommended with no error and no warning', async () => {
  const config = await createConfig({
    extends: ['recommended'],
    rules: {
      ...RULES_OFF,
      // Every example is generated from the schemas and the contract's samples: one that does not
      // conform is a bug in openapi-examples.ts, not a style point.
      'no-invalid-media-type-examples': { severity: 'error', allowAdditionalProperties: false },
    },
  })
  const problems = await lint({ ref: OPENAPI_FILE, config })
  const found = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)
  assert.deepEqual(found, [])
})

interface Operation {
  operationId?: string
  requestBody?: { content: Record<string, { example?: unknown }> }
  responses: Record<
    string,
    { content?: Record<string, { example?: unknown }>; headers?: Record<string, unknown> }
  >
}

function operations(): Array<[string, Operation]> {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
    paths: Record<string, Record<string, Operation>>
    webhooks: Record<string, Record<string, Operation>>
  }
  const out: Array<[string, Operation]> = []
  for (const [path, item] of Object.entries({ ...document.paths, ...document.webhooks }))
    for (const [method, op] of Object.entries(item)) out.push([`${method.toUpperCase()} ${path}`, op])
  return out
}

test('every operation and webhook has a unique operationId, and no path is a wildcard', () => {
  const ids = operations().map(([where, op]) => op.operationId ?? `missing on ${where}`)
  assert.deepEqual(
    ids.filter((id) => id.startsWith('missing')),
    [],
  )
  assert.equal(new Set(ids).size, ids.length)
  assert.deepEqual(
    operations()
      .map(([where]) => where)
      .filter((where) => where.includes('*')),
    [],
  )
})

test('every JSON request body and 2xx answer has an example; every answer declares x-request-id', () => {
  for (const [where, op] of operations()) {
    for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
      if (type.includes('json')) assert.ok('example' in media, `${where} request ${type}`)
    if (where.startsWith('POST ') && !where.startsWith('POST /')) continue // webhooks: sent, not answered
    for (const [status, response] of Object.entries(op.responses)) {
      assert.ok(response.headers?.['x-request-id'], `${where} ${status} x-request-id`)
      if (status.startsWith('2'))
        for (const [type, media] of Object.entries(response.content ?? {}))
          if (type.includes('json')) assert.ok('example' in media, `${where} ${status} ${type}`)
      if (Number(status) >= 400) {
        assert.deepEqual(
          Object.keys(response.content ?? {}),
          ['application/problem+json'],
          `${where} ${status}`,
        )
        if (status === '429') assert.ok(response.headers?.['Retry-After'], `${where} 429 Retry-After`)
      }
    }
  }
})
