// The one authentication hook of every API route. Tokens come either as headers
// (`Authorization: Bearer <auth>` + `X-Service-Session: <session>`) or as cookies
// (`jsonwebtoken=<auth>; X-Service-Session=<session>`), never both ways at once.
// Route config `auth` says what a route needs: 'none', 'token' (auth token only) or 'session'
// (both tokens; the default).
import type { FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { findAccount } from '../accounts/index.ts'
import { findSessionWithAccount } from './repository.ts'

export type AuthRequirement = 'none' | 'token' | 'session'

export interface Principal {
  accountId: string
  email: string
  username: string
  isAdmin: boolean
  /** Set on routes that require a session. */
  sessionId: string | null
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Principal
  }
  interface FastifyContextConfig {
    auth?: AuthRequirement
  }
}

export const AUTH_COOKIE = 'jsonwebtoken'
export const SESSION_COOKIE = 'X-Service-Session'
const SESSION_HEADER = 'x-service-session'

interface Credentials {
  authToken: string | undefined
  sessionToken: string | undefined
}

export function readCredentials(request: FastifyRequest): Credentials {
  const authorization = request.headers.authorization
  const sessionHeader = request.headers[SESSION_HEADER]
  const cookies = request.cookies
  const authCookie = cookies[AUTH_COOKIE]
  const sessionCookie = cookies[SESSION_COOKIE]
  const byHeaders = authorization !== undefined || sessionHeader !== undefined
  const byCookies = authCookie !== undefined || sessionCookie !== undefined
  if (byHeaders && byCookies) {
    throw new AppError(
      'AMBIGUOUS_CREDENTIALS',
      'Present the tokens either as headers or as cookies, not both.',
    )
  }
  if (byCookies) return { authToken: authCookie || undefined, sessionToken: sessionCookie || undefined }
  let authToken: string | undefined
  if (authorization !== undefined) {
    const match = /^Bearer +(\S+) *$/i.exec(authorization)
    if (!match) throw new AppError('AUTH_TOKEN_INVALID', 'The Authorization header must be "Bearer <token>".')
    authToken = match[1]
  }
  if (Array.isArray(sessionHeader)) {
    throw new AppError('SESSION_INVALID', 'Send one X-Service-Session header.')
  }
  return { authToken, sessionToken: sessionHeader || undefined }
}

function sessionRefusal(
  row: { superseded_at: number | null; ends_at: number | null; expires_at: number },
  now: number,
) {
  if (row.superseded_at !== null) {
    return new AppError('SESSION_SUPERSEDED', 'A newer session of this account replaced this one.')
  }
  if (row.ends_at !== null && row.ends_at <= now) {
    return new AppError('SESSION_DELETED', 'The session was deleted.')
  }
  if (row.expires_at <= now) return new AppError('SESSION_EXPIRED', 'The session expired without keep-alive.')
  return null
}

/**
 * onRoute hook of the API scope: gives each route the authentication its config asks for, chosen
 * once when the route is added. (Looking the requirement up per request through
 * `request.routeOptions` builds a fresh options object on every call.)
 */
export function authenticateRoutes(ctx: AppContext) {
  const hooks = {
    token: createAuthenticator(ctx, 'token'),
    session: createAuthenticator(ctx, 'session'),
  } satisfies Record<Exclude<AuthRequirement, 'none'>, onRequestHookHandler>
  return (route: RouteOptions): void => {
    const requirement = route.config?.auth ?? 'session'
    if (requirement === 'none') return
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat()
    // First of the route's own hooks: none of them may run for an unauthenticated caller.
    route.onRequest = [hooks[requirement], ...own]
  }
}

function createAuthenticator(ctx: AppContext, requirement: Exclude<AuthRequirement, 'none'>) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const { authToken, sessionToken } = readCredentials(request)
    if (!authToken) throw new AppError('AUTH_TOKEN_MISSING', 'This call needs an auth token.')
    const now = Date.now()
    const claims = await ctx.tokens.verifyAuthToken(authToken, now)

    if (requirement === 'token') {
      const account = await findAccount(ctx, claims.accountId)
      if (!account) throw new AppError('AUTH_TOKEN_INVALID', 'The auth token names no account.')
      if (account.disabled) throw new AppError('ACCOUNT_DISABLED', 'The account is disabled.')
      request.auth = { ...account, accountId: account.id, sessionId: null }
      return
    }

    if (!sessionToken) throw new AppError('SESSION_MISSING', 'This call needs a session token.')
    const session = await ctx.tokens.verifySessionToken(sessionToken)
    if (session.accountId !== claims.accountId) {
      throw new AppError('SESSION_INVALID', 'The session belongs to another account.')
    }
    // Read per request, never cached: a superseded, expired or deleted session is refused by
    // every process sharing the database at once.
    const row = await findSessionWithAccount(ctx.db.kysely, session.sessionId)
    if (!row || row.account_id !== claims.accountId) throw new AppError('SESSION_INVALID', 'Unknown session.')
    if (row.disabled === 1) throw new AppError('ACCOUNT_DISABLED', 'The account is disabled.')
    const refusal = sessionRefusal(row, now)
    if (refusal) throw refusal
    request.auth = {
      accountId: row.account_id,
      email: row.email,
      username: row.username,
      isAdmin: row.is_admin === 1,
      sessionId: row.id,
    }
  }
}
