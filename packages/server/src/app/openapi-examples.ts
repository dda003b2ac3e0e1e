// Examples for every JSON request body and 2xx answer of the OpenAPI document, built when the
// document is: the records (files, annotations, configurations) are the contract's own samples
// (contract/samples.ts, what POST /webhook/:id/test sends), everything else is derived from the
// schema itself. Nothing is written by hand, so an example cannot drift from its schema;
// test/app/openapi-lint.test.ts has Redocly validate each one against its schema.
import { isEventName, type SampleContext, sampleData } from '../contract/index.ts'

type Json = Record<string, unknown>

const EMAIL = 'alice@example.com'
const NOW = Date.UTC(2026, 0, 15, 9, 30)

function sampleContext(): SampleContext {
  let next = 0
  const newId = () => `665f1c2e8a4b3c0012a1${(0xb200 + next++).toString(16)}`
  return { email: EMAIL, fileId: '665f1c2e8a4b3c0012a1b2c3', newId, now: NOW, bucket: 'file://blobs' }
}

/** Component schemas whose example is a contract sample rather than a derived value. */
function contractSamples(): Record<string, unknown> {
  const s = sampleContext()
  const file = sampleData('file_optimized', s) as Json
  return {
    FileRecord: file,
    Annotation: sampleData('annotation_created', s),
    Configuration: sampleData('configuration_removed', s),
  }
}

// The few patterns the document's strings carry, each with a value that matches it.
const PATTERN_VALUES: Record<string, string> = {
  '^[0-9a-f]{24}$': '665f1c2e8a4b3c0012a1b2c3',
  '^[1-9][0-9]{0,8}$': '2',
  '^(0|[1-9][0-9]{0,8})$': '0',
  '^[0-9]{1,9}$': '1',
  '^[A-Za-z0-9_-]+$': 'eyJrIjoiYiJ9',
  '^(\\*|[^@\\s]+@[^@\\s]+)$': EMAIL,
  '^jsonwebtoken=': 'jsonwebtoken=eyJhbGciOiJSUzI1NiJ9',
}

const FORMAT_VALUES: Record<string, string> = {
  'date-time': new Date(NOW).toISOString(),
  email: EMAIL,
  uri: 'https://hooks.example.com/tessera',
  binary: '',
}

class ExampleBuilder {
  readonly #components: Record<string, Json>
  readonly #samples = contractSamples()

  constructor(components: Record<string, Json>) {
    this.#components = components
  }

  of(schema: Json, depth = 0): unknown {
    if (depth > 12) return null
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.split('/').pop() ?? ''
      if (name in this.#samples) return this.#samples[name]
      return this.of(this.#components[name] ?? {}, depth + 1)
    }
    if ('const' in schema) return schema.const
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
    if ('default' in schema) return schema.default
    if (Array.isArray(schema.enum)) return schema.enum[0]
    const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined
    if (branches) return this.of(branches.find((b) => b.type !== 'null') ?? branches[0] ?? {}, depth + 1)
    if (Array.isArray(schema.allOf))
      return Object.assign({}, ...schema.allOf.map((s) => this.of(s, depth + 1)))
    return this.#byType(schema, depth)
  }

  #byType(schema: Json, depth: number): unknown {
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
    switch (type) {
      case 'object':
        return this.#object(schema, depth)
      case 'array': {
        // A recursive schema (a scene node's children) ends in an empty list.
        if (depth > 6 && !schema.minItems) return []
        const item = this.of((schema.items ?? {}) as Json, depth + 1)
        return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () => item)
      }
      case 'integer':
      case 'number':
        return typeof schema.minimum === 'number' ? schema.minimum : 1
      case 'boolean':
        return true
      case 'null':
        return null
      case 'string':
        return this.#string(schema)
      default:
        return schema.properties ? this.#object(schema, depth) : {}
    }
  }

  #object(schema: Json, depth: number): Json {
    const properties = (schema.properties ?? {}) as Record<string, Json>
    const out: Json = {}
    for (const [name, inner] of Object.entries(properties)) out[name] = this.of(inner, depth + 1)
    // A map (a record of node IDs, of attributes) shows one entry.
    const values =
      Object.values((schema.patternProperties ?? {}) as Record<string, Json>)[0] ??
      schema.additionalProperties
    if (Object.keys(properties).length === 0 && typeof values === 'object' && values !== null)
      out['0'] = this.of(values as Json, depth + 1)
    return out
  }

  #string(schema: Json): string {
    const byPattern = typeof schema.pattern === 'string' ? PATTERN_VALUES[schema.pattern] : undefined
    const byFormat = typeof schema.format === 'string' ? FORMAT_VALUES[schema.format] : undefined
    if (byPattern !== undefined) return byPattern
    if (byFormat !== undefined) return byFormat
    const text = 'text'
    const min = Number(schema.minLength ?? 0)
    return min > text.length ? text.padEnd(min, 'x') : text
  }
}

function exampleMedia(content: unknown, builder: ExampleBuilder): void {
  for (const [type, media] of Object.entries((content ?? {}) as Record<string, Json>)) {
    if (!type.includes('json') || !media.schema || 'example' in media) continue
    media.example = builder.of(media.schema as Json)
  }
}

/** Adds `example` to the JSON request body and 2xx answers of every operation and webhook (in place). */
export function addExamples(document: Json): void {
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>
  const builder = new ExampleBuilder(components)
  addWebhookExamples(document, builder)
  const paths = { ...(document.paths as Json), ...(document.webhooks as Json) } as Record<
    string,
    Record<string, Json>
  >
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      exampleMedia((op.requestBody as Json | undefined)?.content, builder)
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        if (status.startsWith('2')) exampleMedia(response.content, builder)
      }
    }
  }
}

/** Each webhook's payload: the envelope derived from its schema, `data` the event's contract sample. */
function addWebhookExamples(document: Json, builder: ExampleBuilder): void {
  const webhooks = (document.webhooks ?? {}) as Record<string, { post?: Json }>
  for (const [event, item] of Object.entries(webhooks)) {
    const body = (item.post?.requestBody as Json | undefined)?.content as Record<string, Json> | undefined
    const media = body?.['application/json']
    if (!media?.schema || !isEventName(event)) continue
    const envelope = builder.of(media.schema as Json) as Json
    media.example = { ...envelope, event, data: sampleData(event, sampleContext()) }
  }
}
