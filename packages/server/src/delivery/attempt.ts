// One HTTP delivery attempt to a webhook receiver.
//
// Receivers are untrusted: they may hang, reset, redirect into the internal network, stream
// gigabytes or answer nonsense. Every such behaviour becomes a classified failed attempt (never an
// exception), so the retry scheduler and the delivery log only ever see an AttemptResult.

import { isIP } from 'node:net'
import type { Dispatcher } from 'undici'
import type { AttemptErrorCode } from '../contract/index.ts'
import { deliveryAgent, pinAddress } from './agent.ts'
import { Exchange, MAX_RESPONSE_BYTES, type Received } from './exchange.ts'
import { type LookupAll, TargetRefused, vetUrl } from './ssrf.ts'

export interface AttemptInput {
  url: string
  body: string
  headers: Record<string, string>
  /** Budget for the whole attempt: DNS, connect, headers and body. */
  timeoutMs: number
  allowPrivate: boolean
  /** Replaces the shared agent. It must pin addresses itself, e.g. one from createDeliveryAgent. */
  dispatcher?: Dispatcher
  /** Replaces system DNS when vetting (tests, custom resolvers). */
  lookup?: LookupAll
}

export interface AttemptResult {
  ok: boolean
  status: number | null
  durationMs: number
  errorCode: AttemptErrorCode | null
  errorMessage: string | null
  /** First 4 KiB of the response body, for the delivery log. */
  responseExcerpt: string
  /** Receiver's requested back-off, only for 429 and 503. */
  retryAfterMs: number | null
  /** 410 Gone: the receiver says this endpoint no longer exists. */
  gone: boolean
}

const EXCERPT_BYTES = 4 * 1024

const USER_AGENT = 'Tessera-Webhooks/1'

class AttemptTimeout extends Error {}

function excerpt(bytes: Buffer): string {
  // Nothing was cut: decode it all (broken bytes become U+FFFD, as anywhere).
  if (bytes.length <= EXCERPT_BYTES) return bytes.toString('utf8')
  // stream: true holds back a multi-byte character cut at the boundary instead of emitting U+FFFD.
  return new TextDecoder('utf-8').decode(bytes.subarray(0, EXCERPT_BYTES), { stream: true })
}

/** True for `application/json` with any parameters (charset), case-insensitive. */
function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false
  return (contentType.split(';')[0] ?? '').trim().toLowerCase() === 'application/json'
}

/** Parses Retry-After (delta seconds or HTTP-date) into milliseconds from `now`; null if invalid. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (!value) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // HTTP-dates always name a month; this keeps Date.parse from reading '-5' as a year.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN
  if (Number.isNaN(at)) return null
  return Math.max(0, at - now)
}

interface Failure {
  code: AttemptErrorCode
  message: string
}

function errorCodes(err: unknown): string[] {
  // undici and net wrap causes; the useful code may sit one or two levels down.
  const codes: string[] = []
  let current: unknown = err
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code
    if (typeof code === 'string') codes.push(code)
    current = current.cause
  }
  return codes
}

function findRefusal(err: unknown): TargetRefused | null {
  let current: unknown = err
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current instanceof TargetRefused) return current
    current = current.cause
  }
  return null
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
])
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME'])

// Messages are built from error codes only: raw socket messages can name internal addresses.
function classifyError(err: unknown, timedOut: boolean, timeoutMs: number): Failure {
  if (timedOut || err instanceof AttemptTimeout) {
    return { code: 'E_TIMEOUT', message: `receiver did not answer within ${timeoutMs} ms` }
  }
  const refusal = findRefusal(err)
  if (refusal) return { code: refusal.code, message: refusal.message }
  const codes = errorCodes(err)
  if (codes.some((c) => TIMEOUT_CODES.has(c))) {
    return { code: 'E_TIMEOUT', message: `receiver did not answer within ${timeoutMs} ms` }
  }
  if (codes.some((c) => DNS_CODES.has(c))) {
    return { code: 'E_DNS', message: 'target host name could not be resolved' }
  }
  if (codes.includes('ECONNREFUSED')) return { code: 'E_CONNECT', message: 'connection refused' }
  if (codes.some((c) => c === 'ECONNRESET' || c === 'UND_ERR_SOCKET' || c === 'EPIPE')) {
    return { code: 'E_CONNECT', message: 'connection reset or closed by the receiver' }
  }
  const first = codes[0]
  if (first && /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_)/.test(first)) {
    return { code: 'E_CONNECT', message: `TLS handshake failed (${first})` }
  }
  return { code: 'E_CONNECT', message: first ? `connection failed (${first})` : 'connection failed' }
}

function requestHeaders(headers: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT }
  for (const [name, value] of Object.entries(headers)) merged[name.toLowerCase()] = value
  return merged
}

function judge(res: Received): Failure | null {
  if (res.status !== 200) {
    const redirect = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''
    return { code: 'E_STATUS', message: `receiver answered status ${res.status}${redirect}` }
  }
  if (!isJsonMediaType(res.contentType)) {
    const got = res.contentType ? JSON.stringify(res.contentType.slice(0, 100)) : 'none'
    return { code: 'E_CONTENT_TYPE', message: `content type must be application/json, got ${got}` }
  }
  if (res.truncated) {
    return { code: 'E_BODY', message: `response body exceeds ${MAX_RESPONSE_BYTES} bytes` }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(res.bytes.toString('utf8'))
  } catch {
    return { code: 'E_BODY', message: 'response body is not valid JSON' }
  }
  const acknowledged =
    typeof parsed === 'object' && parsed !== null && (parsed as { success?: unknown }).success === true
  if (!acknowledged) return { code: 'E_BODY', message: 'response body lacks "success": true' }
  return null
}

/** POSTs one delivery and classifies the outcome. Never rejects for anything the receiver does. */
export async function sendAttempt(input: AttemptInput): Promise<AttemptResult> {
  const started = performance.now()
  const exchange = new Exchange()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    exchange.cancel(new AttemptTimeout('attempt timed out'))
  }, input.timeoutMs)

  const finish = (failure: Failure | null): AttemptResult => {
    const { status } = exchange
    return {
      ok: failure === null,
      status,
      durationMs: Math.round(performance.now() - started),
      errorCode: failure?.code ?? null,
      errorMessage: failure?.message ?? null,
      responseExcerpt: excerpt(exchange.bytes()),
      retryAfterMs: status === 429 || status === 503 ? parseRetryAfter(exchange.retryAfter) : null,
      gone: status === 410,
    }
  }

  try {
    const vetted = await exchange.guard(
      vetUrl(input.url, { allowPrivate: input.allowPrivate, lookup: input.lookup }),
    )
    // IP literals (bracketed for IPv6) never reach the lookup; only host names need a pin.
    const host = vetted.url.hostname
    if (isIP(host) === 0 && !host.startsWith('[')) {
      pinAddress(host, input.allowPrivate, vetted.address, vetted.family)
    }
    const received = await exchange.send(input.dispatcher ?? deliveryAgent(input.allowPrivate), vetted.url, {
      method: 'POST',
      headers: requestHeaders(input.headers),
      body: input.body,
      // Belt and braces: the timer already covers both phases.
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    })
    return finish(judge(received))
  } catch (err) {
    // A non-200 status already decided the attempt; a body that then stalls or breaks only
    // costs us the excerpt, and the status (with its Retry-After) is the more useful verdict.
    const { status } = exchange
    if (status !== null && status !== 200) {
      return finish(judge({ status, contentType: undefined, bytes: exchange.bytes(), truncated: false }))
    }
    return finish(classifyError(err, timedOut, input.timeoutMs))
  } finally {
    clearTimeout(timer)
  }
}
