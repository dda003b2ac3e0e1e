// Who a live connection is (docs/live.md "Connecting"): the account its upgrade request's
// credentials name, or those of its first message (tokens), checked as a session route checks them,
// with read access to the file; or a guest's link session (modules/links) for this file, when the
// file allows public meetings.
import type { FastifyRequest } from 'fastify'
import { requireAllowedOrigin } from '../../platform/browser.ts'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { linkReaderId } from '../../platform/ids.ts'
import { requireFileAccess } from '../files/index.ts'
import { isLinkOpen, resolveLinkSession } from '../links/index.ts'
import { type Principal, principalOfTokens, resolvePrincipal } from '../sessions/index.ts'
import type { LiveIdentity } from './participant.ts'
import { cleanGuestName, type Hello } from './protocol.ts'

function identityOf(principal: Principal): LiveIdentity {
  return {
    accountId: principal.accountId,
    sessionId: principal.sessionId,
    issuedAt: principal.issuedAt,
    linkId: null,
    name: principal.username,
    email: principal.email,
  }
}

async function accountIdentity(ctx: AppContext, principal: Principal, fileId: string): Promise<LiveIdentity> {
  await requireFileAccess(ctx.db.kysely, principal.accountId, fileId, 'read')
  return identityOf(principal)
}

/** Who the upgrade request's credentials name, checked; null when it came with none. */
export async function upgradeIdentity(ctx: AppContext, request: FastifyRequest, fileId: string) {
  const { authorization } = request.headers
  const cookies = request.cookies ?? {}
  if (
    authorization === undefined &&
    request.headers['x-service-session'] === undefined &&
    !cookies.jsonwebtoken
  ) {
    return null
  }
  const principal = await resolvePrincipal(ctx, request, 'session')
  if (principal.via === 'cookies') requireAllowedOrigin(request, ctx.config.corsOrigins)
  return accountIdentity(ctx, principal, fileId)
}

export async function helloIdentity(ctx: AppContext, hello: Hello, fileId: string): Promise<LiveIdentity> {
  if (hello.linkSession !== undefined) return guestIdentity(ctx, hello.linkSession, hello.name, fileId)
  if (hello.token === undefined) {
    throw new AppError(
      'AUTH_TOKEN_MISSING',
      'Send token and session in hello, or credentials with the upgrade.',
    )
  }
  if (hello.session === undefined)
    throw new AppError('SESSION_MISSING', 'A live session needs a session token.')
  return accountIdentity(ctx, await principalOfTokens(ctx, hello.token, hello.session), fileId)
}

async function guestIdentity(
  ctx: AppContext,
  jwt: string,
  name: string | undefined,
  fileId: string,
): Promise<LiveIdentity> {
  const link = await resolveLinkSession(ctx, jwt)
  if (link.fileId !== fileId) throw new AppError('NOT_FOUND', `No file ${fileId}.`)
  if (!link.allowLivePublicMeetings) {
    throw new AppError('LIVE_GUESTS_NOT_ALLOWED', 'This file does not allow guests in its live sessions.')
  }
  return { accountId: null, sessionId: null, issuedAt: 0, linkId: link.linkId, name: cleanGuestName(name) }
}

/**
 * Why a guest may no longer stay, read now: the link ended (revoked, rotated, expired, its file
 * deleted), or the file stopped allowing public meetings; null while it may.
 */
export async function guestRefusalNow(
  ctx: AppContext,
  linkId: string,
  fileId: string,
): Promise<AppError | null> {
  if (!(await isLinkOpen(ctx, linkId))) {
    return new AppError('LINK_SESSION_ENDED', 'The link was revoked, rotated or has expired.')
  }
  const { file } = await requireFileAccess(ctx.db.kysely, linkReaderId(fileId, linkId), fileId, 'read')
  if (file.allow_live_public_meetings !== 1) {
    return new AppError('LIVE_GUESTS_NOT_ALLOWED', 'This file no longer allows guests in its live sessions.')
  }
  return null
}
