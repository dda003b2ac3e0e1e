// What browsers need of the API: the two credential cookies, the CSRF rule for writes authenticated
// by cookies, and CORS for the origins TESSERA_CORS_ORIGINS lists (off when it lists none).
import type { CookieSerializeOptions } from '@fastify/cookie'
import fastifyCors from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from './errors.ts'

export const AUTH_COOKIE = 'jsonwebtoken'
export const SESSION_COOKIE = 'X-Service-Session'
/** Either header proves the request came from script that may set custom headers (see below). */
const CSRF_HEADERS = ['x-tessera-csrf', 'x-requested-with'] as const

/**
 * HttpOnly (no script reads the tokens), Path=/, Secure when the request came over HTTPS. The auth
 * cookie is SameSite=Strict: no cross-site request, not even a top-level link, carries it.
 */
export function credentialCookie(
  request: FastifyRequest,
  sameSite: 'strict' | 'lax',
  maxAgeSeconds: number,
): CookieSerializeOptions {
  return { httpOnly: true, sameSite, path: '/', secure: request.protocol === 'https', maxAge: maxAgeSeconds }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The origin of an Origin or Referer header, or null when absent or not a URL ("null" included). */
function originOf(value: string | undefined): string | null {
  if (!value || value === 'null') return null
  try {
    const origin = new URL(value).origin
    return origin === 'null' ? null : origin
  } catch {
    return null
  }
}

/**
 * CSRF rule for a state-changing request whose credentials are cookies (the browser adds them to
 * any request, also one a foreign page triggers): it must show that our own page sent it, by
 * - a custom header, `X-Tessera-CSRF` or `X-Requested-With` (any value): a foreign page can set
 *   one only after a CORS preflight, which only listed origins pass; or
 * - an `Origin` (without one, a `Referer`) that is this server's own origin or a listed one.
 * Otherwise 403 CSRF_REJECTED. GET, HEAD and OPTIONS change nothing and are not checked.
 */
export function requireCsrfProof(request: FastifyRequest, allowedOrigins: readonly string[]): void {
  if (SAFE_METHODS.has(request.method)) return
  if (CSRF_HEADERS.some((name) => request.headers[name] !== undefined)) return
  const origin =
    request.headers.origin !== undefined
      ? originOf(request.headers.origin)
      : originOf(request.headers.referer)
  if (origin !== null && (origin === ownOrigin(request) || allowedOrigins.includes(origin))) return
  throw new AppError(
    'CSRF_REJECTED',
    'A write authenticated by cookies needs an X-Tessera-CSRF header or a same-origin Origin.',
  )
}

/**
 * A WebSocket upgrade authenticated by cookies (docs/live.md): the browser sends the cookies with a
 * WebSocket opened by any page and no CORS applies to it, so its Origin (which browsers always send
 * with one) must be this server's own or a listed one; otherwise 403 CSRF_REJECTED.
 */
export function requireAllowedOrigin(request: FastifyRequest, allowedOrigins: readonly string[]): void {
  const origin = originOf(request.headers.origin)
  if (origin !== null && (origin === ownOrigin(request) || allowedOrigins.includes(origin))) return
  throw new AppError(
    'CSRF_REJECTED',
    'A live session authenticated by cookies must be opened from this server or a listed origin.',
  )
}

function ownOrigin(request: FastifyRequest): string | null {
  // The browser sets Host itself: a page cannot forge it for a request it makes a victim send.
  return originOf(`${request.protocol}://${request.host}`)
}

/** Headers a browser client may send cross-origin, and the answer headers it may read. */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Service-Session',
  'X-Link-Session',
  'X-Tessera-CSRF',
  'X-Requested-With',
  'X-Request-Id',
  'If-None-Match',
  'If-Range',
  'Range',
  'Idempotency-Key',
]
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'ETag',
  'Content-Range',
  'Content-Disposition',
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'Idempotent-Replayed',
]

/**
 * CORS for the listed origins only, credentials allowed (the console may live on another origin);
 * any other origin gets no CORS header at all, so its scripts cannot read answers or send
 * preflighted requests. Nothing is registered when the list is empty.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return
  const allowed = new Set(origins)
  await app.register(fastifyCors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  })
}
