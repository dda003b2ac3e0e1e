// The last pass over the OpenAPI document @fastify/swagger builds from the route schemas: what a
// route schema cannot say, or would say 49 times. Errors become the statuses each operation really
// answers, as `application/problem+json` (what the error handler sends); every answer declares the
// headers it carries; request bodies and 2xx answers get examples (openapi-examples.ts).

import { ERRORS } from '../platform/errors.ts'
import { addExamples } from './openapi-examples.ts'

type Json = Record<string, unknown>

const PROBLEM = { $ref: '#/components/schemas/Problem' }
const REQUEST_ID = {
  description:
    'The request ID: the caller’s `x-request-id` if it sent a valid one, else a new one. Logged with the request.',
  schema: { type: 'string' },
}
const RETRY_AFTER = {
  description: 'Seconds to wait before trying again',
  schema: { type: 'integer', minimum: 0 },
}
const ETAG = { description: 'The entity tag of the bytes (for If-None-Match)', schema: { type: 'string' } }
const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description: 'The remaining quota and when it resets (IETF RateLimit fields)',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The quota and its window (IETF RateLimit fields)',
    schema: { type: 'string' },
  },
}

/**
 * Errors one operation answers beyond those its shape implies (see `impliedStatuses`), read off its
 * code paths and the registry (platform/errors.ts). Keyed by operationId.
 */
const OWN_STATUSES: Record<string, number[]> = {
  changePassword: [403],
  createSession: [402],
  getReadiness: [503],
  // With TESSERA_METRICS_TOKEN set (operations.ts).
  getMetrics: [401],
  uploadFile: [404, 409, 415],
  downloadFile: [416],
  downloadFileRevision: [416],
  downloadOptimizedFile: [409, 416],
  getFileThumbnail: [409],
  getSceneTree: [409],
  shareFile: [409],
  starFile: [409],
  updateSceneAttributes: [404],
  getSceneAttributes: [404],
  createAnnotation: [404, 409],
  updateAnnotation: [404, 409],
  deleteAnnotation: [404],
  listAnnotations: [404],
  saveConfiguration: [404, 409],
  deleteConfiguration: [404, 409],
  lockConfiguration: [404, 409],
  unlockConfiguration: [404],
  listConfigurations: [404],
  createWebhook: [409, 429],
  updateWebhook: [429],
  deleteWebhook: [429],
  retryDelivery: [409],
  testWebhook: [409, 429],
  listAccounts: [403],
  createAccount: [403, 409],
  updateAccount: [403],
  getLicenses: [403],
  streamEvents: [429, 503],
  login: [401, 403, 429],
  createLink: [409],
  getLink: [404],
  openLink: [401, 403, 404, 410, 429],
  renewLinkSession: [429],
  searchFiles: [429],
}

/** Statuses every operation of a shape answers: bad input, credentials, CSRF, body limits, ids. */
function impliedStatuses(op: Json): number[] {
  const statuses = [500]
  const parameters = (op.parameters ?? []) as Json[]
  const authenticated = !(Array.isArray(op.security) && op.security.length === 0)
  // Every authenticated call can present ambiguous credentials (400 AMBIGUOUS_CREDENTIALS).
  if (authenticated || parameters.length > 0 || op.requestBody) statuses.push(400)
  if (authenticated) statuses.push(401)
  // Cookie-authenticated writes without X-Tessera-CSRF: 403 CSRF_REJECTED.
  // 403 also for a link session on an operation it may not call (LINK_READ_ONLY, LINK_NOT_ALLOWED).
  if (authenticated) statuses.push(403)
  if (parameters.some((p) => p.in === 'path')) statuses.push(404)
  if (op.requestBody) statuses.push(413, 415)
  return statuses
}

function problemResponse(status: number): Json {
  const codes = Object.entries(ERRORS)
    .filter(([, entry]) => entry.status === status)
    .map(([code]) => `\`${code}\``)
  const headers: Json = { 'x-request-id': REQUEST_ID }
  if (status === 429) Object.assign(headers, { 'Retry-After': RETRY_AFTER }, RATE_LIMIT_HEADERS)
  if (status === 503) headers['Retry-After'] = RETRY_AFTER
  const title = Object.values(ERRORS).find((entry) => entry.status === status)?.title ?? 'Error'
  return {
    description: `${title}: a problem document with \`code\` ${codes.join(', ')}`,
    headers,
    content: { 'application/problem+json': { schema: PROBLEM } },
  }
}

function isBinary(response: Json): boolean {
  const content = (response.content ?? {}) as Record<string, { schema?: Json }>
  return Object.values(content).some((media) => media.schema?.format === 'binary')
}

function finishResponses(op: Json): void {
  const responses = (op.responses ?? {}) as Record<string, Json>
  const errors = new Set([...impliedStatuses(op), ...(OWN_STATUSES[String(op.operationId)] ?? [])])
  const out: Record<string, Json> = {}
  for (const [status, response] of Object.entries(responses)) {
    // The ranges are replaced by the statuses named one by one.
    if (status === '4XX' || status === '5XX') continue
    if (Number(status) >= 400) {
      errors.add(Number(status))
      continue
    }
    const headers: Json = { ...((response.headers ?? {}) as Json), 'x-request-id': REQUEST_ID }
    if (status === '304' || isBinary(response)) headers.ETag = ETAG
    const { type: _nullType, ...rest } = response
    out[status] = { ...rest, headers }
  }
  for (const status of [...errors].sort((a, b) => a - b)) out[String(status)] = problemResponse(status)
  op.responses = out
}

const TAGS = [
  { name: 'accounts', description: 'Logging in, the current account, passwords' },
  { name: 'sessions', description: 'Sessions: each holds a license token while it lives' },
  {
    name: 'files',
    description: 'Files and folders: uploads, revisions, downloads, sharing, conversion results',
  },
  { name: 'scene', description: "Attributes of the nodes of a file's scene tree" },
  { name: 'annotations', description: 'Annotations on files, with their permission lists' },
  { name: 'configurations', description: 'Saved viewer configurations of files' },
  { name: 'links', description: 'Share by link: a file’s link, opening it, link sessions of guests' },
  { name: 'webhooks', description: 'Webhook registrations, their delivery log, retries and test events' },
  { name: 'events', description: 'The live event stream (Server-Sent Events)' },
  { name: 'admin', description: "Administrators' routes: accounts and licenses" },
  { name: 'operations', description: 'Health, readiness, metrics and the instance keys' },
]

/** @fastify/swagger's `transformObject`: the document as served and committed. */
export function finishDocument<Document extends object>(document: Document): Document {
  const paths = ((document as Json).paths ?? {}) as Record<string, Record<string, Json>>
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) finishResponses(op)
  }
  addExamples(document as Json)
  return { ...document, tags: TAGS }
}
