// Retries (docs/sdk.md, "Retries and idempotency"): a call that failed on the way (connection
// refused or reset, socket hang-up, no answer within `timeoutMs`) or answered 429 or 503 is sent
// again, after Retry-After or a jittered exponential back-off, at most `retries` times. Only calls
// that are safe to repeat: GET, HEAD, PUT, DELETE, a read sent with POST (a search), and a POST
// that carries an Idempotency-Key. The SDK gives every create call a fresh key, kept across that
// call's own retries, so a create whose answer was lost is answered by the server from its first
// run instead of making a second record.

export interface RetryOptions {
  /** Attempts after the first, for calls safe to repeat; 0 disables retries. Default 2. */
  retries?: number
  /** No answer (its headers) within this many ms: the attempt is abandoned and retried. Default 30 000; 0: none. */
  timeoutMs?: number
  /** The longest wait between attempts, also for a longer Retry-After. Default 30 000. */
  maxRetryDelayMs?: number
}

export interface RetryPolicy {
  retries: number
  timeoutMs: number
  maxRetryDelayMs: number
  /** The first back-off (then doubled per attempt, each with ±50% jitter). */
  baseDelayMs: number
}

export function retryPolicy(options: RetryOptions): RetryPolicy {
  const retries = options.retries ?? 2
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError('retries must be a whole number ≥ 0')
  return {
    retries,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
    baseDelayMs: 250,
  }
}

/** The header the server honours on create calls (docs/api.md, "Idempotent requests"). */
export const IDEMPOTENCY_HEADER = 'idempotency-key'

/** The create calls that honour Idempotency-Key: each gets a fresh key from the SDK. */
const CREATES: ReadonlyArray<[method: string, path: RegExp]> = [
  ['POST', /\/annotation\/create\/$/],
  ['POST', /\/annotation\/reply\/create\/$/],
  ['POST', /\/file\/configuration\/$/],
  ['POST', /\/file\/[^/]+\/share$/],
  ['POST', /\/file\/[^/]+\/link$/],
  ['POST', /\/file\/upload\/$/],
  // A BCF import makes annotations, replies and saved views: a second run must not make them twice.
  ['POST', /\/file\/[^/]+\/bcf$/],
  ['POST', /\/account\/session$/],
  ['PUT', /\/webhook\/$/],
]

export function isCreate(method: string, url: string): boolean {
  const path = new URL(url).pathname
  return CREATES.some(([m, pattern]) => m === method && pattern.test(path))
}

/** Reads sent with POST (their question is a body): nothing is written, so they repeat safely. */
const POSTED_READS: ReadonlyArray<RegExp> = [/\/scene\/search$/, /\/scene\/search\/files$/]

/** May this request be sent again without risk of doing its work twice? */
export function repeatable(method: string, headers: Headers, url: string): boolean {
  if (['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method)) return true
  if (method === 'POST' && POSTED_READS.some((pattern) => pattern.test(new URL(url).pathname))) return true
  return headers.has(IDEMPOTENCY_HEADER)
}

export function newIdempotencyKey(): string {
  return crypto.randomUUID()
}

/** Answers worth another attempt: too many requests, unavailable. */
export function retryableStatus(status: number): boolean {
  return status === 429 || status === 503
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_CLOSED',
])

/**
 * A failure on the way (not the caller's abort): fetch's TypeError with a connection-level cause,
 * or our own attempt timeout (`AttemptTimeout`).
 */
export function retryableFailure(error: unknown): boolean {
  if (error instanceof AttemptTimeout) return true
  if (!(error instanceof TypeError)) return false
  let cause: unknown = (error as { cause?: unknown }).cause
  // undici nests: TypeError('fetch failed') → SocketError / Error with a code.
  for (let depth = 0; cause && depth < 3; depth++) {
    const code = (cause as { code?: unknown }).code
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true
    if (cause instanceof Error && /socket hang up|other side closed/i.test(cause.message)) return true
    cause = (cause as { cause?: unknown }).cause
  }
  // Browsers say only "Failed to fetch" / "NetworkError": a failure on the way, not an answer.
  return cause === undefined && /failed to fetch|networkerror|network error|load failed/i.test(error.message)
}

/** Our own per-attempt timeout ran out before the answer's headers came. */
export class AttemptTimeout extends Error {
  override name = 'AttemptTimeout'
}

/**
 * The wait before attempt `attempt + 1` (`attempt` counts from 0): Retry-After when the answer gave
 * one (seconds or an HTTP-date), else `base · 2^attempt` with ±50% jitter; at most maxRetryDelayMs.
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfter: string | null,
  now = Date.now(),
) {
  const said = parseRetryAfter(retryAfter, now)
  if (said !== null) return Math.min(said, policy.maxRetryDelayMs)
  const backOff = policy.baseDelayMs * 2 ** attempt
  return Math.min(policy.maxRetryDelayMs, Math.round(backOff * (0.5 + Math.random())))
}

/** Retry-After as milliseconds from `now`, or null when absent or unreadable. */
function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function pause(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
