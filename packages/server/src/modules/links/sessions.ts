// Opening a link and the link sessions it gives (docs/api.md, "Links"). A link session is an RS256
// JWT (platform/tokens.ts, typ tessera-link+jwt) naming the link and its file, short-lived; every
// request with it reads the link's row again (by primary key), so a revoked or rotated link, or a
// deleted file, ends its sessions at the next request. Guests hold no license: licenses count the
// sessions of named accounts; guests are bounded by the rate limits below instead.
import { verify } from '@node-rs/argon2'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { findAccount } from '../accounts/index.ts'
import { AccountRateLimit } from '../webhooks/index.ts'
import * as repo from './repository.ts'
import { tokenHashOf } from './service.ts'

/** Who a link session is: what other layers (live sessions) learn from `resolveLinkSession`. */
export interface LinkSession {
  linkId: string
  fileId: string
  allowLivePublicMeetings: boolean
  /** Epoch ms the link session (the JWT) expires. */
  expiresAt: number
}

export interface OpenedLink {
  linkSession: string
  fileId: string
  expiresAt: number
  linkExpiresAt: number | null
  allowLivePublicMeetings: boolean
}

/** The rate limits of links, one set per process (as every limit of ours: webhooks/rate-limit.ts). */
export class LinkLimits {
  readonly opens: AccountRateLimit
  readonly requests: AccountRateLimit
  constructor(ctx: AppContext) {
    const { linkOpenRate, linkSessionRate } = ctx.config
    this.opens = new AccountRateLimit(
      linkOpenRate,
      'link opens',
      'TESSERA_LINK_OPEN_RATE',
      'link-open',
      'client',
    )
    this.requests = new AccountRateLimit(
      linkSessionRate,
      'requests',
      'TESSERA_LINK_SESSION_RATE',
      'link-session',
      'link',
    )
  }
}

async function signSession(
  ctx: AppContext,
  link: { id: string; file_id: string; expires_at: number | null },
) {
  const linkEnd = link.expires_at === null ? Number.POSITIVE_INFINITY : Number(link.expires_at)
  // A session never outlives its link.
  const ttl = Math.min(ctx.config.linkSessionTtlMs, linkEnd - Date.now())
  return ctx.tokens.signLinkSession(link.id, link.file_id, ttl)
}

/**
 * Exchanges a link's token (and password) for a link session. Unknown token (never made, revoked,
 * rotated, file deleted): 404 LINK_NOT_FOUND; past its expiry: 410 LINK_EXPIRED; password missing:
 * 401 LINK_PASSWORD_REQUIRED, wrong: 403 LINK_PASSWORD_WRONG. The caller counts the attempt first.
 */
export async function openLink(
  ctx: AppContext,
  input: { token: string; password?: string },
): Promise<OpenedLink> {
  const link = await repo.findLinkByTokenHash(ctx.db.kysely, tokenHashOf(input.token))
  if (!link || (await ownerDisabled(ctx, link.owner_id))) {
    throw new AppError('LINK_NOT_FOUND', 'This link does not exist or was revoked.')
  }
  const linkExpiresAt = link.expires_at === null ? null : Number(link.expires_at)
  if (linkExpiresAt !== null && linkExpiresAt <= Date.now()) {
    throw new AppError('LINK_EXPIRED', 'This link has expired.')
  }
  if (link.password_hash !== null) {
    if (!input.password) throw new AppError('LINK_PASSWORD_REQUIRED', 'This link needs its password.')
    if (!(await verify(link.password_hash, input.password))) {
      throw new AppError('LINK_PASSWORD_WRONG', 'The password of this link is not right.')
    }
  }
  const session = await signSession(ctx, link)
  return {
    linkSession: session.token,
    fileId: link.file_id,
    expiresAt: session.expiresAt,
    linkExpiresAt,
    allowLivePublicMeetings: link.allow_live_public_meetings === 1,
  }
}

/**
 * The link session `jwt` names, if its link still opens: 401 LINK_SESSION_INVALID or
 * LINK_SESSION_EXPIRED (the JWT), LINK_SESSION_ENDED (revoked, rotated, expired, file deleted).
 * For other layers (the live sessions' guests) as for the HTTP routes.
 */
export async function resolveLinkSession(ctx: AppContext, jwt: string): Promise<LinkSession> {
  const claims = await ctx.tokens.verifyLinkSession(jwt)
  const link = await repo.findLinkById(ctx.db.kysely, claims.linkId)
  const ended =
    !link ||
    link.file_id !== claims.fileId ||
    (link.expires_at !== null && Number(link.expires_at) <= Date.now()) ||
    (await ownerDisabled(ctx, link.owner_id))
  if (ended) throw new AppError('LINK_SESSION_ENDED', 'The link was revoked, rotated or has expired.')
  return {
    linkId: link.id,
    fileId: link.file_id,
    allowLivePublicMeetings: link.allow_live_public_meetings === 1,
    expiresAt: claims.expiresAt,
  }
}

/** Whether the link still opens (not revoked, rotated, expired, its file not deleted). */
export async function isLinkOpen(ctx: AppContext, linkId: string): Promise<boolean> {
  const link = await repo.findLinkById(ctx.db.kysely, linkId)
  if (link === undefined || (link.expires_at !== null && Number(link.expires_at) <= Date.now())) return false
  return !(await ownerDisabled(ctx, link.owner_id))
}

/** A disabled account's links stop working with it (its sessions end; its files are not shared). */
async function ownerDisabled(ctx: AppContext, ownerId: string): Promise<boolean> {
  return (await findAccount(ctx, ownerId))?.disabled !== false
}

/** A fresh link session for a live one (GET /links/session): same link, a new expiry. */
export async function renewLinkSession(ctx: AppContext, linkId: string): Promise<OpenedLink> {
  const link = await repo.findLinkById(ctx.db.kysely, linkId)
  if (!link || (await ownerDisabled(ctx, link.owner_id))) {
    throw new AppError('LINK_SESSION_ENDED', 'The link was revoked, rotated or has expired.')
  }
  const fresh = await signSession(ctx, link)
  return {
    linkSession: fresh.token,
    fileId: link.file_id,
    expiresAt: fresh.expiresAt,
    linkExpiresAt: link.expires_at === null ? null : Number(link.expires_at),
    allowLivePublicMeetings: link.allow_live_public_meetings === 1,
  }
}
