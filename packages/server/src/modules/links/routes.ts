// The links API (docs/api.md, "Links"): the owner's create, read, rotate and revoke of a file's link;
// a guest's open (token and password → link session) and renewal. Registered in this order, which is
// the OpenAPI document's order.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { answerInCommit } from '../../platform/idempotent-routes.ts'
import { sayRateLimit } from '../../platform/rate-limit-headers.ts'
import {
  CreateLinkBody,
  LinkAnswer,
  LinkFileParams,
  LinkRevoked,
  LinkSessionAnswer,
  LinkSettings,
  LinkWithTokenAnswer,
  OpenLinkBody,
} from './schemas.ts'
import { type CreatedLink, createLink, getLink, revokeLink, rotateLink } from './service.ts'
import {
  type LinkLimits,
  type OpenedLink,
  openLink,
  renewLinkSession,
  resolveLinkSession,
} from './sessions.ts'

const tags = ['links']
const OWNER_ONLY = 'Owner only (403 for editors and viewers, 404 for anyone else).'

/** The resolver of link sessions the authentication hook calls (sessions' authenticate.ts). */
export function linkSessionResolver(ctx: AppContext, limits: LinkLimits) {
  return async (_request: FastifyRequest, reply: FastifyReply, jwt: string) => {
    const session = await resolveLinkSession(ctx, jwt)
    sayRateLimit(reply, limits.requests.take(session.linkId))
    return session
  }
}

function sessionAnswer(opened: OpenedLink) {
  return {
    success: true as const,
    linkSession: opened.linkSession,
    fileId: opened.fileId,
    expiresAt: new Date(opened.expiresAt).toISOString(),
    linkExpiresAt: opened.linkExpiresAt === null ? null : new Date(opened.linkExpiresAt).toISOString(),
    allowLivePublicMeetings: opened.allowLivePublicMeetings,
  }
}

export function linkRoutes(fastify: FastifyInstance, ctx: AppContext, limits: LinkLimits): void {
  fastify.addSchema(LinkSettings)
  ownerRoutes(fastify, ctx)
  guestRoutes(fastify, ctx, limits)
}

function ownerRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/file/:id/link',
    {
      config: { idempotent: 'body' },
      schema: {
        tags,
        operationId: 'createLink',
        summary: 'Share a file by link (viewer rights, optional expiry and password)',
        description: `${OWNER_ONLY} One link per file: 409 LINK_EXISTS when it has one (rotate or revoke it). The token is answered here and on rotate only.`,
        params: LinkFileParams,
        body: CreateLinkBody,
        response: { 200: LinkWithTokenAnswer },
      },
    },
    async (request, reply) => {
      const answer = (created: CreatedLink) => ({ success: true as const, ...created })
      const inCommit = answerInCommit(request, reply, answer)
      return answer(await createLink(ctx, request.auth.accountId, request.params.id, request.body, inCommit))
    },
  )
  app.get(
    '/file/:id/link',
    {
      schema: {
        tags,
        operationId: 'getLink',
        summary: 'The settings of a file’s link (never its token)',
        description: `${OWNER_ONLY} 404 LINK_NOT_FOUND when the file has no link.`,
        params: LinkFileParams,
        response: { 200: LinkAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      link: await getLink(ctx, request.auth.accountId, request.params.id),
    }),
  )
  app.post(
    '/file/:id/link/rotate',
    {
      schema: {
        tags,
        operationId: 'rotateLink',
        summary: 'A new token (and id) for a file’s link; the old one stops at once',
        description: `${OWNER_ONLY} Keeps the expiry and password. Every link session of the old token ends. 404 LINK_NOT_FOUND without a link.`,
        params: LinkFileParams,
        response: { 200: LinkWithTokenAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await rotateLink(ctx, request.auth.accountId, request.params.id)),
    }),
  )
  app.delete(
    '/file/:id/link',
    {
      schema: {
        tags,
        operationId: 'revokeLink',
        summary: 'Stop sharing a file by link',
        description: `${OWNER_ONLY} Every link session of it ends at once. 404 LINK_NOT_FOUND without a link.`,
        params: LinkFileParams,
        response: { 200: LinkRevoked },
      },
    },
    async (request) => {
      await revokeLink(ctx, request.auth.accountId, request.params.id)
      return { success: true as const }
    },
  )
}

function guestRoutes(fastify: FastifyInstance, ctx: AppContext, limits: LinkLimits): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/links/open',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        operationId: 'openLink',
        summary: 'Open a link: its token (and password) for a link session',
        description:
          'No account needed. 404 LINK_NOT_FOUND (unknown, revoked or rotated token), 410 LINK_EXPIRED, ' +
          '401 LINK_PASSWORD_REQUIRED, 403 LINK_PASSWORD_WRONG. TESSERA_LINK_OPEN_RATE (20) calls per ' +
          'client address per minute: 429 TOO_MANY_REQUESTS.',
        body: OpenLinkBody,
        response: { 200: LinkSessionAnswer },
      },
    },
    async (request, reply) => {
      sayRateLimit(reply, limits.opens.take(request.ip))
      return sessionAnswer(await openLink(ctx, request.body))
    },
  )
  app.get(
    '/links/session',
    {
      config: { auth: 'link' },
      schema: {
        tags,
        operationId: 'renewLinkSession',
        summary: 'A fresh link session for the one in `x-link-session`',
        description:
          'Link sessions only (401 LINK_SESSION_MISSING without one). 401 LINK_SESSION_ENDED once the ' +
          'link was revoked or rotated, or its file deleted.',
        response: { 200: LinkSessionAnswer },
      },
    },
    async (request) => {
      const link = request.auth.link
      if (!link) throw new AppError('LINK_SESSION_MISSING', 'This call needs a link session.')
      return sessionAnswer(await renewLinkSession(ctx, link.linkId))
    },
  )
}
