// The one HTTP layer: an openapi-fetch client typed by the generated paths, a middleware that
// presents the tokens as headers, and `unwrap`, which turns every non-2xx answer into a TesseraError.
import createClient, { type Client } from 'openapi-fetch'
import { type ClientCode, problemError, TesseraError } from './errors.ts'
import type { paths } from './generated/api.ts'
import { type RetryOptions, type RetryPolicy, retryPolicy } from './retry.ts'
import { retryingFetch } from './retrying-fetch.ts'

export type ApiClient = Client<paths>

/** The tokens of a connection; `session` is empty until a session exists. */
export interface Tokens {
  auth: string
  session: string
}

export interface HttpOptions extends RetryOptions {
  url: string
  /**
   * Browsers: sign in by cookie (`POST /account/login/` with `cookie: true`). The tokens then live in
   * HttpOnly cookies no script can read, survive a reload (`Tessera.resume`), and every request
   * carries `X-Tessera-CSRF` (the server's CSRF rule for cookie writes). Default false: tokens as
   * headers, cookies never stored nor sent.
   */
  cookies?: boolean
  /** A fetch of your own (proxies, tests); default globalThis.fetch. */
  fetch?: typeof globalThis.fetch
  /** Extra headers for every call. */
  headers?: Record<string, string>
}

/** The retry policy each client was made with (uploads retry on their own, see upload.ts). */
const policies = new WeakMap<ApiClient, RetryPolicy>()

export function retryPolicyOf(api: ApiClient): RetryPolicy {
  return policies.get(api) ?? retryPolicy({})
}

export function createApi(options: HttpOptions, tokens: Tokens): ApiClient {
  const policy = retryPolicy(options)
  const inner = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const api = createClient<paths>({
    baseUrl: options.url.replace(/\/+$/, ''),
    // Create calls get an Idempotency-Key; calls safe to repeat are retried (retry.ts).
    fetch: retryingFetch(inner, policy),
    // Header mode: tokens travel as headers only. `omit` also makes browsers ignore the
    // X-Service-Session cookie the session call sets: a cookie sent back next to the headers is 400
    // AMBIGUOUS_CREDENTIALS. Cookie mode: the cookies are the credentials (also to a listed CORS origin).
    credentials: credentialsOf(options),
    // The API never redirects, and a redirect must not carry the tokens elsewhere. `error` also
    // keeps Node's fetch from teeing a streamed upload body for a possible redirect, which held the
    // whole upload in memory (undici issue 4058); `manual` does not avoid that.
    redirect: 'error',
    ...(options.headers ? { headers: options.headers } : {}),
  })
  api.use({
    onRequest({ request }) {
      if (options.cookies) {
        // Any value will do: a foreign page cannot add a custom header without a CORS preflight.
        request.headers.set('x-tessera-csrf', '1')
        return request
      }
      if (tokens.auth && !request.headers.has('authorization')) {
        request.headers.set('authorization', `Bearer ${tokens.auth}`)
      }
      if (tokens.session) request.headers.set('x-service-session', tokens.session)
      return request
    },
  })
  policies.set(api, policy)
  return api
}

export function credentialsOf(options: Pick<HttpOptions, 'cookies'>): 'include' | 'omit' {
  return options.cookies ? 'include' : 'omit'
}

interface Answer<T> {
  data?: T
  error?: unknown
  response: Response
}

/** Awaits an openapi-fetch call: its data, or a TesseraError (also for network failures). */
export async function unwrap<T>(call: Promise<Answer<T>>, signal?: AbortSignal): Promise<T> {
  return (await unwrapWithResponse(call, signal)).data
}

/** As unwrap, with the answer itself: for what its headers say (a download's file name). */
export async function unwrapWithResponse<T>(
  call: Promise<Answer<T>>,
  signal?: AbortSignal,
): Promise<{ data: T; response: Response }> {
  let answer: Answer<T>
  try {
    answer = await call
  } catch (error) {
    throw networkError(error, signal)
  }
  const { response } = answer
  if (response.ok) return { data: answer.data as T, response }
  throw errorFromAnswer(response, answer.error)
}

export function errorFromAnswer(response: Response, body: unknown): TesseraError {
  const requestId = response.headers.get('x-request-id') ?? undefined
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN)
  if (isProblem(body)) {
    return problemError({
      status: response.status,
      code: body.code,
      detail: body.detail,
      title: body.title,
      requestId,
      ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfter } : {}),
    })
  }
  return new TesseraError({
    status: response.status,
    code: 'UNEXPECTED_RESPONSE',
    detail: `HTTP ${response.status} without a problem document`,
    requestId,
  })
}

export function networkError(error: unknown, signal?: AbortSignal): TesseraError {
  if (error instanceof TesseraError) return error
  const aborted = signal?.aborted || (error instanceof Error && error.name === 'AbortError')
  const code: ClientCode = aborted ? 'ABORTED' : 'NETWORK_ERROR'
  const detail = error instanceof Error ? error.message : String(error)
  return new TesseraError({ status: 0, code, detail, cause: error })
}

interface ProblemBody {
  code: TesseraError['code']
  detail: string
  title: string
}

function isProblem(body: unknown): body is ProblemBody {
  if (typeof body !== 'object' || body === null) return false
  const { code, detail } = body as Record<string, unknown>
  return typeof code === 'string' && typeof detail === 'string'
}
