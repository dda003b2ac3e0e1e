// The one authentication hook of every API route. Tokens come as headers or as cookies (which
// way wins when both come: credentials.ts); writes authenticated by cookies need CSRF proof.
// Route config `auth` says what a route needs: 'none', 'token' (auth token only), 'session'
// (both tokens; the default) or 'link' (a link session only). A link session (header
// `x-link-session`, modules/links) is taken only by routes that opt in with config `link: 'read'`
// (reads of the linked file) or need it (`auth: 'link'`); on every other route it is refused first,
// before anything else is read: 403 LINK_READ_ONLY for a write, LINK_NOT_ALLOWED for a read. So a
// route that forgot to opt in refuses guests by default.
import type { FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify'
import { requireCsrfProof } from '../../platform/browser.ts'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { linkReaderId } from '../../platform/ids.ts'
import { findAccount } from '../accounts/index.ts'
import { type CredentialSource, readCredentials } from './credentials.ts'
import { findSessionWithAccount } from './repository.ts'
import { authRowCache } from './session-cache.ts'

export type AuthRequirement = 'none' | 'token' | 'session' | 'link'

/** The link session a request carries, resolved by modules/links (given by the composition root). */
export type LinkSessionResolver = (
  request: FastifyRequest,
  reply: FastifyReply,
  jwt: string,
) => Promise<{ linkId: string; fileId: string }>

export interface Principal {
  accountId: string
  email: string
  username: string
  isAdmin: boolean
  /** Set on routes that require a session. */
  sessionId: string | null
  /** How the tokens came: a cookie-authenticated answer may renew or clear cookies. */
  via: CredentialSource
  /** When the auth token was issued (ms): a revocation after it refuses it. */
  issuedAt: number
  /**
   * A guest through a link: `accountId` is then the link's reader ID (platform/ids.ts), which reads
   * the one file and names no account; null for accounts.
   */
  link: { linkId: string; fileId: string } | null
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: Principal
  }
  interface FastifyContextConfig {
    auth?: AuthRequirement
    /** 'read': a link session may call this route (a read of the linked file). */
    link?: 'read'
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
export function authenticateRoutes(ctx: AppContext, links: LinkSessionResolver) {
  const hooks = {
    token: createAuthenticator(ctx, 'token'),
    session: createAuthenticator(ctx, 'session'),
  } satisfies Record<Exclude<AuthRequirement, 'none' | 'link'>, Authenticate>
  const linkOnly = linkAuthenticator(links, null)
  const withLinks = {
    token: linkAuthenticator(links, hooks.token),
    session: linkAuthenticator(links, hooks.session),
  }
  return (route: RouteOptions): void => {
    const requirement = route.config?.auth ?? 'session'
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat()
    let first: Authenticate[]
    if (requirement === 'link') first = [linkOnly]
    else if (route.config?.link !== 'read')
      first = [refuseLinkSessions, ...(requirement === 'none' ? [] : [hooks[requirement]])]
    else if (requirement === 'none') first = []
    else first = [withLinks[requirement]]
    // First of the route's own hooks: none of them may run for an unauthenticated caller.
    route.onRequest = [...(first as onRequestHookHandler[]), ...own]
  }
}

function linkSessionOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-link-session']
  return Array.isArray(header) ? header.join(',') : header
}

/** Every route that did not opt in: a request with a link session is refused before anything runs. */
async function refuseLinkSessions(request: FastifyRequest): Promise<void> {
  if (linkSessionOf(request) === undefined) return
  if (request.method === 'GET' || request.method === 'HEAD') {
    throw new AppError('LINK_NOT_ALLOWED', 'A link session cannot make this call.')
  }
  throw new AppError('LINK_READ_ONLY', 'A link gives read access only.')
}

/** A link session when the request has one; else `accounts` (null: the route needs a link session). */
function linkAuthenticator(links: LinkSessionResolver, accounts: Authenticate | null): Authenticate {
  return async (request, reply) => {
    const jwt = linkSessionOf(request)
    if (jwt === undefined) {
      if (accounts === null) throw new AppError('LINK_SESSION_MISSING', 'This call needs a link session.')
      return accounts(request, reply)
    }
    const { linkId, fileId } = await links(request, reply, jwt)
    request.auth = {
      accountId: linkReaderId(fileId, linkId),
      email: '',
      username: '',
      isAdmin: false,
      sessionId: null,
      via: 'headers',
      issuedAt: 0,
      link: { linkId, fileId },
    }
  }
}

type Authenticate = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

function createAuthenticator(
  ctx: AppContext,
  requirement: Exclude<AuthRequirement, 'none' | 'link'>,
): Authenticate {
  return async (request) => {
    request.auth = await resolvePrincipal(ctx, request, requirement)
  }
}

/** Who the request's credentials name, as a route needing `requirement` checks them; else throws. */
export async function resolvePrincipal(
  ctx: AppContext,
  request: FastifyRequest,
  requirement: Exclude<AuthRequirement, 'none' | 'link'>,
): Promise<Principal> {
  const { authToken, sessionToken, source } = readCredentials(request, requirement)
  return checkTokens(ctx, { authToken, sessionToken, source }, requirement, (via) => {
    // After the tokens are known good, so that an expired sign-in still answers 401 (sign in again).
    if (via === 'cookies') requireCsrfProof(request, ctx.config.corsOrigins)
  })
}

/**
 * The principal of a session's two tokens that came without a request (a live session's first
 * message, docs/live.md), checked exactly as a session route checks them.
 */
export function principalOfTokens(
  ctx: AppContext,
  authToken: string,
  sessionToken: string,
): Promise<Principal> {
  return checkTokens(ctx, { authToken, sessionToken, source: 'headers' }, 'session', () => {})
}

async function checkTokens(
  ctx: AppContext,
  { authToken, sessionToken, source }: ReturnType<typeof readCredentials>,
  requirement: Exclude<AuthRequirement, 'none' | 'link'>,
  checkOrigin: (via: CredentialSource) => void,
): Promise<Principal> {
  if (!authToken || source === null)
    throw new AppError('AUTH_TOKEN_MISSING', 'This call needs an auth token.')
  const now = Date.now()
  const claims = await ctx.tokens.verifyAuthToken(authToken, now)
  checkOrigin(source)

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
      issuedAt: claims.issuedAt,
      link: null,
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
    issuedAt: claims.issuedAt,
    link: null,
  }
}

/**
 * Why a session that was good when a long-lived connection opened (a live session) no longer is,
 * read from the database now (not the cache); null while it still works.
 */
export async function sessionRefusalNow(
  ctx: AppContext,
  bound: { accountId: string; sessionId: string; issuedAt: number },
): Promise<AppError | null> {
  const row = await findSessionWithAccount(ctx.db.kysely, bound.sessionId)
  if (!row || row.account_id !== bound.accountId) return new AppError('SESSION_INVALID', 'Unknown session.')
  if (row.disabled === 1) return new AppError('ACCOUNT_DISABLED', 'The account is disabled.')
  return sessionRefusal(row, Date.now()) ?? revokedToken(bound.issuedAt, row.tokens_valid_after)
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
