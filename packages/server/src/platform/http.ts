// HTTP kernel: problem documents for every error (from the one registry), the JSON body parser,
// and the default error responses every route declares in its schema (and so in OpenAPI).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import sjson from 'secure-json-parse'
import { Type } from 'typebox'
import { AppError, ERRORS, type ErrorCode } from './errors.ts'
import { cursorHoldsNul, invalidCursor } from './paging.ts'

const ProblemSchema = Type.Object(
  {
    success: Type.Literal(false),
    status: Type.Integer(),
    title: Type.String(),
    detail: Type.String(),
    code: Type.Union(
      (Object.keys(ERRORS) as ErrorCode[]).map((code) => Type.Literal(code)),
      { description: 'Stable error code; see the API description for each.' },
    ),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem document' },
)

const PROBLEM_REF = Type.Ref('Problem')

function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
  return reply.status(error.status).type('application/problem+json').send(error.toProblem())
}

// Fastify's own errors for bad input, mapped to our codes. Their messages are safe to show.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_ASYNC_CONSTRAINT: 'BAD_REQUEST',
}

export function toAppError(error: FastifyError | Error): AppError | null {
  if (error instanceof AppError) return error
  const fastifyError = error as FastifyError
  if (fastifyError.validation) {
    const where = fastifyError.validationContext ?? 'request'
    return new AppError(
      'VALIDATION_FAILED',
      `${where}: ${describeValidation(where, fastifyError.validation)}`,
    )
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined
  if (mapped) return new AppError(mapped, fastifyError.message)
  const status = fastifyError.statusCode
  if (status && status >= 400 && status < 500) {
    const code =
      (Object.keys(ERRORS) as ErrorCode[]).find((c) => ERRORS[c].status === status) ?? 'BAD_REQUEST'
    return new AppError(code, fastifyError.message)
  }
  return null
}

interface SchemaError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
}

/**
 * One line per field, each naming it: Ajv reports an enumeration (a union of constants) as one
 * error per allowed value plus one for the union, which read as ten identical complaints; here the
 * allowed values are listed once. A missing or unknown property is named as the field itself.
 */
function describeValidation(where: string, errors: readonly SchemaError[]): string {
  const byField = new Map<string, SchemaError[]>()
  for (const error of errors) {
    const field = `${where}${error.instancePath}`
    byField.set(field, [...(byField.get(field) ?? []), error])
  }
  const lines = new Set<string>()
  for (const [field, group] of byField) {
    const allowed = group
      .filter((e) => e.keyword === 'const')
      .map((e) => JSON.stringify(e.params.allowedValue))
    if (allowed.length > 0) {
      lines.add(`${field} must be one of ${[...new Set(allowed)].join(', ')}`)
      continue
    }
    for (const error of group) {
      if (error.keyword === 'required')
        lines.add(`${field}/${String(error.params.missingProperty)} is required`)
      else if (error.keyword === 'additionalProperties') {
        lines.add(`${field}/${String(error.params.additionalProperty)} is not a known field`)
      } else if (error.keyword !== 'anyOf') lines.add(`${field} ${error.message ?? 'is invalid'}`)
    }
  }
  return lines.size > 0 ? [...lines].join('; ') : `${where} is invalid`
}

/**
 * Fastify's router answers a bad URL or an over-long path parameter itself, before any hook or error
 * handler: passed as the `frameworkErrors` option, this makes those answers problem documents too.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendProblem(reply, toAppError(error) ?? new AppError('BAD_REQUEST', error.message))
}

export function installHttpKernel(app: FastifyInstance, options: { bodyLimit: number }): void {
  app.addSchema(ProblemSchema)

  // Every route answers errors as problem documents; declaring it here puts it in OpenAPI.
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide) return
    route.schema ??= {}
    const response = (route.schema.response ?? {}) as Record<string, unknown>
    response['4xx'] ??= PROBLEM_REF
    response['5xx'] ??= PROBLEM_REF
    route.schema.response = response
  })

  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type')
    // A page with a policy of its own (the console's, app/console.ts) keeps it, whether it was set on
    // the reply or on the raw response by the static file server.
    const ownPolicy =
      reply.hasHeader('content-security-policy') || reply.raw.hasHeader('content-security-policy')
    if (typeof type === 'string' && type.startsWith('text/html') && !ownPolicy) {
      reply.header('content-security-policy', HTML_CSP)
    }
    done(null, payload)
  })

  // PostgreSQL cannot store U+0000 in text, and no name, path, comment or setting needs it: it is
  // refused at the edge, the same on both dialects, instead of failing deep in one of them.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.includes('%00')) return done()
    // In a list endpoint's cursor, a malformed cursor: the code every other bad cursor answers.
    done(cursorHoldsNul(request.query) ? invalidCursor() : new AppError('VALIDATION_FAILED', NUL_IN_URL))
  })

  // An empty body with Content-Type: application/json is "no body" (the spec's session call sends
  // exactly that); malformed JSON is a 400, prototype-poisoning keys are refused, and so is text
  // holding U+0000 (see above).
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: options.bodyLimit },
    (_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      const text = typeof body === 'string' ? body : body.toString('utf8')
      if (text.trim() === '') return done(null, undefined)
      // Before parsing: validation, serialization and our own walks recurse, and thousands of
      // levels exhaust the stack (a 500); no API body needs more than a few levels.
      if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(new AppError('VALIDATION_FAILED', TOO_DEEP))
      let parsed: unknown
      try {
        parsed = sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' })
      } catch {
        return done(new AppError('MALFORMED_JSON', 'The request body is not valid JSON.'))
      }
      // JSON can only spell U+0000 as the escape \u0000: without it in the text, no walk is needed.
      if (text.includes('\\u0000') && holdsNul(parsed))
        return done(new AppError('VALIDATION_FAILED', NUL_IN_BODY))
      done(null, parsed)
    },
  )

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = toAppError(error)
    if (known) return sendProblem(reply, known)
    request.log.error({ err: error }, 'unhandled error')
    return sendProblem(reply, new AppError('INTERNAL_ERROR', 'An unexpected error occurred.'))
  })

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}.`),
    ),
  )
}

/**
 * The Content-Security-Policy of every HTML page the server serves (/docs today, the console
 * later), set in one place: scripts, styles, fonts and API calls from this origin only, images also
 * as data: URLs (Swagger UI's icons), no plugins, no <base> rewriting, no framing (clickjacking).
 */
const HTML_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const NUL_IN_URL = 'The URL must not contain the NUL character (%00).'
const NUL_IN_BODY = 'Text in the request body must not contain the NUL character (U+0000).'

/** Arrays and objects nested in one another in a JSON body; deeper bodies are refused (400). */
export const MAX_JSON_DEPTH = 64
const TOO_DEEP = `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`

/** Does JSON text nest arrays/objects deeper than `limit`? One pass, no recursion, no parse. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Fewer characters than levels: nothing to count.
  if (text.length <= limit) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d

/** Does any string or key of a parsed JSON value hold U+0000? */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (Array.isArray(value)) return value.some(holdsNul)
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([key, inner]) => key.includes('\u0000') || holdsNul(inner))
  }
  return false
}

/**
 * Sends JSON text that is already the answer (stored or spliced texts): a string with a JSON content
 * type goes out as it is, past the route's serializer. The text must match the route's 200 schema.
 */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text)
}
