// Which credentials a request presents. Tokens come as headers (`Authorization: Bearer <auth>` +
// `X-Service-Session: <session>`) or as cookies (`jsonwebtoken=<auth>; X-Service-Session=<session>`).
// A browser keeps cookies it was given and sends them along with everything, so a caller using
// headers often carries a stray cookie too. The rule (docs/api.md, "Mixing headers and cookies"):
// - only one way present: that way;
// - both: the headers win, the cookies are ignored, when the headers carry every token the route
//   needs and the cookies do not (a stray cookie beside complete headers);
// - otherwise (incomplete headers beside any cookie, or two complete sets): 400
//   AMBIGUOUS_CREDENTIALS: which token goes with which cannot be told.
import type { FastifyRequest } from 'fastify'
import { AUTH_COOKIE, SESSION_COOKIE } from '../../platform/browser.ts'
import { AppError } from '../../platform/errors.ts'

const SESSION_HEADER = 'x-service-session'

export type CredentialSource = 'headers' | 'cookies'

export interface Credentials {
  authToken: string | undefined
  sessionToken: string | undefined
  /** Where they came from; null when the request carries none. */
  source: CredentialSource | null
}

/** `token`: the route needs the auth token only; `session`: both tokens. */
export function readCredentials(request: FastifyRequest, needs: 'token' | 'session'): Credentials {
  const authorization = request.headers.authorization
  const sessionHeader = request.headers[SESSION_HEADER]
  const authCookie = request.cookies[AUTH_COOKIE]
  const sessionCookie = request.cookies[SESSION_COOKIE]
  const byHeaders = authorization !== undefined || sessionHeader !== undefined
  const byCookies = authCookie !== undefined || sessionCookie !== undefined
  if (byHeaders && byCookies) {
    const headersComplete = authorization !== undefined && (needs === 'token' || sessionHeader !== undefined)
    const cookiesComplete = authCookie !== undefined && (needs === 'token' || sessionCookie !== undefined)
    if (!headersComplete || cookiesComplete) {
      throw new AppError(
        'AMBIGUOUS_CREDENTIALS',
        headersComplete
          ? 'Complete credentials came both as headers and as cookies; send one way.'
          : 'Tokens came partly as headers and partly as cookies; send every token the same way.',
      )
    }
  }
  if (byHeaders) return fromHeaders(authorization, sessionHeader)
  if (byCookies) {
    return { authToken: authCookie || undefined, sessionToken: sessionCookie || undefined, source: 'cookies' }
  }
  return { authToken: undefined, sessionToken: undefined, source: null }
}

function fromHeaders(authorization: string | undefined, sessionHeader: string | string[] | undefined) {
  let authToken: string | undefined
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization)
    if (!match) throw new AppError('AUTH_TOKEN_INVALID', 'The Authorization header must be "Bearer <token>".')
    authToken = match[1]
  }
  if (Array.isArray(sessionHeader)) {
    throw new AppError('SESSION_INVALID', 'Send one X-Service-Session header.')
  }
  return { authToken, sessionToken: sessionHeader || undefined, source: 'headers' as const }
}
