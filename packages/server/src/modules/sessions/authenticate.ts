// The one authentication hook of every API route. Tokens come as headers or as cookies (which
// way wins when both come: credentials.ts); writes authenticated by cookies need CSRF proof.
// Route config `auth` says what a route needs: 'none', 'token' (auth token only) or 'session'
// (both tokens; the default).
import type { FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify'
import { requireCsrfProof } from '../../platform/browser.ts'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { findAccount } from '../accounts/index.ts'
import { type CredentialSource, readCredentials } from './credentials.ts'
import { findSessionWithAccount } from './repository.ts'
import { authRowCache } from './session-cache.ts'

export type AuthRequirement = 'none' | 'token' | 'session'

export interface Principal {
  accountId: string
  email: string
  username: string
  isAdmin: boolean
  /** Set on routes that require a session. */
  sessionId: string | null
  /** How the tokens came: a cookie-authenticated answer may renew or clear cookies. */
  via: CredentialSource
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Principal
  }
  interface FastifyContextConfig {
    auth?: AuthRequirement
  }
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

/** An auth token issued before its account's last revocation (password change or reset, disabling). */
function revokedToken(issuedAt: number, tokensValidAfter: number): AppError | null {
  if (issuedAt >= Number(tokensValidAfter)) return null
  return new AppError(
    'TOKEN_REVOKED',
    'The auth token was revoked (password change or reset); sign in again.',
  )
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
    request.auth = await resolvePrincipal(ctx, request, requirement)
  }
}

/** Who the request's credentials name, as a route needing `requirement` checks them; else throws. */
export async function resolvePrincipal(
  ctx: AppContext,
  request: FastifyRequest,
  requirement: Exclude<AuthRequirement, 'none'>,
): Promise<Principal> {
  const { authToken, sessionToken, source } = readCredentials(request, requirement)
  if (!authToken || source === null)
    throw new AppError('AUTH_TOKEN_MISSING', 'This call needs an auth token.')
  const now = Date.now()
  const claims = await ctx.tokens.verifyAuthToken(authToken, now)
  // After the tokens are known good, so that an expired sign-in still answers 401 (sign in again).
  if (source === 'cookies') requireCsrfProof(request, ctx.config.corsOrigins)

  const cache = authRowCache(ctx)
  if (requirement === 'token') {
    const account = await (cache
      ? cache.account(ctx, claims.accountId, now)
      : findAccount(ctx, claims.accountId))
    if (!account) throw new AppError('AUTH_TOKEN_INVALID', 'The auth token names no account.')
    if (account.disabled) throw new AppError('ACCOUNT_DISABLED', 'The account is disabled.')
    const revoked = revokedToken(claims.issuedAt, account.tokensValidAfter)
    if (revoked) throw revoked
    return {
      accountId: account.id,
      email: account.email,
      username: account.username,
      isAdmin: account.isAdmin,
      sessionId: null,
      via: source,
    }
  }

  if (!sessionToken) throw new AppError('SESSION_MISSING', 'This call needs a session token.')
  const session = await ctx.tokens.verifySessionToken(sessionToken)
  if (session.accountId !== claims.accountId) {
    throw new AppError('SESSION_INVALID', 'The session belongs to another account.')
  }
  // From the cache only while every change to the row reaches it (session-cache.ts): a superseded,
  // expired, deleted or disabled session is refused by every process sharing the database at once.
  const row = await (cache
    ? cache.session(ctx.db.kysely, session.sessionId, now)
    : findSessionWithAccount(ctx.db.kysely, session.sessionId))
  if (!row || row.account_id !== claims.accountId) throw new AppError('SESSION_INVALID', 'Unknown session.')
  if (row.disabled === 1) throw new AppError('ACCOUNT_DISABLED', 'The account is disabled.')
  // A session ended by the revocation (disabling) says so first; the token's revocation after it.
  const refusal = sessionRefusal(row, now) ?? revokedToken(claims.issuedAt, row.tokens_valid_after)
  if (refusal) throw refusal
  return {
    accountId: row.account_id,
    email: row.email,
    username: row.username,
    isAdmin: row.is_admin === 1,
    sessionId: row.id,
    via: source,
  }
}

/**
 * On a route that needs only the auth token: the session the request also came with (a browser
 * sends its session cookie with every request), checked as a session route checks it (401 with the
 * session's refusal when it no longer works); null when none came. The event stream binds to it.
 */
export async function requestSessionId(ctx: AppContext, request: FastifyRequest): Promise<string | null> {
  if (!readCredentials(request, 'token').sessionToken) return null
  return (await resolvePrincipal(ctx, request, 'session')).sessionId
}
