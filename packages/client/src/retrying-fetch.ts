// The fetch under the openapi-fetch client: gives create calls their Idempotency-Key and sends
// again what failed on the way or answered 429/503 (retry.ts says when). A body is replayed only
// when it is JSON or a BCF zip (both read once into memory: the zip, at most 32 MiB, was given as
// bytes already); a streamed upload is retried by `uploadFile`, which can make its body again from
// the source.
import {
  AttemptTimeout,
  IDEMPOTENCY_HEADER,
  isCreate,
  newIdempotencyKey,
  pause,
  type RetryPolicy,
  repeatable,
  retryableFailure,
  retryableStatus,
  retryDelay,
} from './retry.ts'

type Fetch = (request: Request, init?: RequestInit) => Promise<Response>

export function retryingFetch(inner: typeof globalThis.fetch, policy: RetryPolicy): Fetch {
  return async (request, init) => {
    if (isCreate(request.method, request.url) && !request.headers.has(IDEMPOTENCY_HEADER)) {
      request.headers.set(IDEMPOTENCY_HEADER, newIdempotencyKey())
    }
    if (
      policy.retries === 0 ||
      !repeatable(request.method, request.headers, request.url) ||
      !replayableBody(request)
    ) {
      return inner(request, init)
    }
    const body = request.body === null ? undefined : await request.arrayBuffer()
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.retries
      const outcome = await attemptOnce(inner, request, body, init, policy.timeoutMs)
      let delay: number
      if ('response' in outcome) {
        const { response } = outcome
        if (last || !retryableStatus(response.status)) return response
        delay = retryDelay(policy, attempt, response.headers.get('retry-after'))
        await response.body?.cancel().catch(() => {})
      } else {
        if (last || !retryableFailure(outcome.error)) throw outcome.error
        delay = retryDelay(policy, attempt, null)
      }
      await pause(delay, request.signal)
    }
  }
}

/**
 * No body, a JSON one, or a zip (a BCF import, which files.importBcf sends from bytes it holds):
 * read into memory once and sent again as it was.
 */
function replayableBody(request: Request): boolean {
  if (request.body === null) return true
  const type = (request.headers.get('content-type') ?? '').toLowerCase()
  return type.startsWith('application/json') || type.startsWith('application/zip')
}

/** One attempt, abandoned (AttemptTimeout) when its answer's headers take longer than `timeoutMs`. */
async function attemptOnce(
  inner: typeof globalThis.fetch,
  request: Request,
  body: ArrayBuffer | undefined,
  init: RequestInit | undefined,
  timeoutMs: number,
): Promise<{ response: Response } | { error: unknown }> {
  const timeout = new AbortController()
  const timer =
    timeoutMs > 0
      ? setTimeout(() => timeout.abort(new AttemptTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs)
      : undefined
  const copy = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    ...(body === undefined ? {} : { body }),
    redirect: request.redirect,
    credentials: request.credentials,
    signal: AbortSignal.any([request.signal, timeout.signal]),
  })
  try {
    return { response: await inner(copy, init) }
  } catch (error) {
    // Our timeout, not the caller's abort: a failure on the way, worth another attempt.
    if (timeout.signal.aborted && !request.signal.aborted) return { error: timeout.signal.reason }
    return { error }
  } finally {
    clearTimeout(timer)
  }
}
