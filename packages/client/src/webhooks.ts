// @tessera/client/webhooks: verifies a Tessera webhook delivery and answers its typed envelope.
// Web Crypto only (crypto.subtle) and bcryptjs: runs in Node, browsers, Deno and workers.
//
// Two proofs are accepted (docs/webhooks.md):
// - the Standard Webhooks signature: `webhook-signature` holds one or more `v1,<base64>` HMAC-SHA256
//   over `${webhook-id}.${webhook-timestamp}.${body}`, keyed with the secretToken's UTF-8 bytes
//   (two during a rotation); it binds the secret to this body and moment;
// - the specification's `x-service-token`: bcrypt(secretToken), the same on every delivery.
import bcrypt from 'bcryptjs'
import type { webhooks } from './generated/api.ts'

/** The envelope of each event, as the OpenAPI document's `webhooks` section describes it. */
export type WebhookEnvelope = {
  [E in keyof webhooks]: webhooks[E]['post']['requestBody']['content']['application/json']
}[keyof webhooks]
export type WebhookEventName = WebhookEnvelope['event']
/** The envelope of one event, e.g. `EnvelopeOf<'file_optimized'>`. */
export type EnvelopeOf<E extends WebhookEventName> = Extract<WebhookEnvelope, { event: E }>

/** Every event name, checked against the generated union both ways at compile time. */
export const WEBHOOK_EVENTS = [
  'attribute_updated',
  'file_uploaded',
  'file_optimized',
  'file_optimization_failed',
  'file_shared',
  'file_unshared',
  'annotation_created',
  'annotation_updated',
  'annotation_removed',
  'annotation_discussion_updated',
  'configuration_created',
  'configuration_updated',
  'configuration_removed',
] as const satisfies readonly WebhookEventName[]
const allEventsListed: [Exclude<WebhookEventName, (typeof WEBHOOK_EVENTS)[number]>] extends [never]
  ? true
  : false = true
void allEventsListed

export type VerificationFailure =
  | 'missing_headers'
  | 'bad_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'bad_token'
  | 'bad_body'

export class WebhookVerificationError extends Error {
  readonly reason: VerificationFailure

  constructor(reason: VerificationFailure, message: string) {
    super(message)
    this.reason = reason
    this.name = 'WebhookVerificationError'
  }
}

export type HeaderSource = Headers | Record<string, string | string[] | undefined>

export interface VerifyInput {
  /** The request's headers: a Fetch `Headers`, or Node's `req.headers`. */
  headers: HeaderSource
  /** The raw body exactly as received: never re-serialized JSON. */
  body: string | Uint8Array | ArrayBuffer
  /** The webhook's secretToken; during a rotation on your side, [new, old]. */
  secret: string | readonly string[]
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSec?: number
  /**
   * Which proof to require: `signature` (default; Tessera signs every delivery), `token` or
   * `both`. `auto` checks the signature when the delivery has one, else `x-service-token`: only
   * for deliveries from a server that does not sign, as the token is the same on every delivery,
   * so whoever saw one can strip the signature headers and send any body with it.
   */
  require?: 'auto' | 'signature' | 'token' | 'both'
  /** The current time in Unix seconds (tests). */
  now?: number
}

const encoder = new TextEncoder()

/** Verifies one delivery; answers its envelope or throws WebhookVerificationError. */
export async function verifyWebhook(input: VerifyInput): Promise<WebhookEnvelope> {
  const secrets = typeof input.secret === 'string' ? [input.secret] : [...input.secret]
  if (secrets.length === 0 || secrets.some((s) => s.length === 0))
    throw new TypeError('verifyWebhook: no secret')
  const body = typeof input.body === 'string' ? encoder.encode(input.body) : new Uint8Array(input.body)
  const signature = header(input.headers, 'webhook-signature')
  const token = header(input.headers, 'x-service-token')
  const mode = input.require ?? 'signature'
  const checkSignature =
    mode === 'signature' || mode === 'both' || (mode === 'auto' && signature !== undefined)
  const checkToken = mode === 'token' || mode === 'both' || (mode === 'auto' && signature === undefined)
  if (checkSignature) await verifySignature(input, body, secrets)
  if (checkToken) {
    if (token === undefined)
      throw new WebhookVerificationError('missing_headers', 'no x-service-token header')
    if (!(await tokenMatches(token, secrets))) {
      throw new WebhookVerificationError('bad_token', 'x-service-token does not match the secret')
    }
  }
  return parseEnvelope(body)
}

async function verifySignature(input: VerifyInput, body: Uint8Array, secrets: string[]): Promise<void> {
  const id = header(input.headers, 'webhook-id')
  const timestamp = header(input.headers, 'webhook-timestamp')
  const signatures = header(input.headers, 'webhook-signature')
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError(
      'missing_headers',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    )
  }
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError('bad_signature', 'webhook-timestamp is not a number')
  const tolerance = input.toleranceSec ?? 300
  const now = input.now ?? Math.floor(Date.now() / 1000)
  const sent = Number(timestamp)
  if (now - sent > tolerance)
    throw new WebhookVerificationError('timestamp_too_old', 'webhook-timestamp is too old')
  if (sent - now > tolerance)
    throw new WebhookVerificationError('timestamp_in_future', 'webhook-timestamp is in the future')
  const candidates = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => base64Bytes(entry.slice(3)))
    .filter((bytes) => bytes !== undefined)
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body)
  for (const secret of secrets) {
    const key = await crypto.subtle.importKey(
      'raw',
      encoder.encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['verify'],
    )
    // subtle.verify compares in constant time.
    for (const candidate of candidates) {
      if (await crypto.subtle.verify('HMAC', key, candidate, signed)) return
    }
  }
  throw new WebhookVerificationError('bad_signature', 'no webhook-signature matches the secret')
}

/**
 * bcrypt costs tens of milliseconds, and Tessera sends the same hash on every delivery: remember
 * the outcome per (hash, secret) so a receiver pays once per hash. Bounded, least recently used out.
 */
const TOKEN_CACHE_SIZE = 64
const tokenCache = new Map<string, boolean>()

async function tokenMatches(token: string, secrets: string[]): Promise<boolean> {
  for (const secret of secrets) {
    const key = `${token}\u0000${secret}`
    let matches = tokenCache.get(key)
    if (matches === undefined) {
      matches = await bcrypt.compare(secret, token)
      if (tokenCache.size >= TOKEN_CACHE_SIZE) tokenCache.delete(tokenCache.keys().next().value as string)
    } else tokenCache.delete(key)
    tokenCache.set(key, matches)
    if (matches) return true
  }
  return false
}

/** How many bcrypt outcomes are remembered (tests). */
export function tokenCacheSize(): number {
  return tokenCache.size
}

function parseEnvelope(body: Uint8Array): WebhookEnvelope {
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body))
  } catch {
    throw new WebhookVerificationError('bad_body', 'the body is not JSON')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WebhookVerificationError('bad_body', 'the body is not an envelope')
  }
  const envelope = parsed as Record<string, unknown>
  const shaped =
    typeof envelope.file === 'string' &&
    (WEBHOOK_EVENTS as readonly unknown[]).includes(envelope.event) &&
    typeof envelope.data === 'object' &&
    envelope.data !== null &&
    typeof envelope.owner === 'string' &&
    typeof envelope.runTimestamp === 'number' &&
    typeof envelope.uuid === 'string'
  if (!shaped) throw new WebhookVerificationError('bad_body', 'the body is not a Tessera envelope')
  return parsed as WebhookEnvelope
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof Headers === 'function' && headers instanceof Headers) return headers.get(name) ?? undefined
  const record = headers as Record<string, string | string[] | undefined>
  let value = record[name]
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name)
    value = key === undefined ? undefined : record[key]
  }
  return Array.isArray(value) ? value.join(' ') : value
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
  } catch {
    return undefined
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.byteLength + b.byteLength)
  out.set(a, 0)
  out.set(b, a.byteLength)
  return out
}
