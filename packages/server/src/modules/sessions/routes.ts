import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { credentialCookie, SESSION_COOKIE } from '../../platform/browser.ts'
import type { AppContext } from '../../platform/context.ts'
import { answerInCommit } from '../../platform/idempotent-routes.ts'
import { logoutRoute } from './logout.ts'
import { DeleteResult, KeepAliveResult, SessionResult } from './schemas.ts'
import { type CreatedSession, createSession, deleteSession, keepAlive } from './service.ts'
import { startAuthRowCache } from './session-cache.ts'
import { sessionStateRoute } from './session-state.ts'

function sessionId(request: { auth: { sessionId: string | null } }): string {
  // Routes below require a session, so the hook has set it.
  return request.auth.sessionId ?? ''
}

function sessionCookieOptions(request: FastifyRequest, maxAgeSeconds: number) {
  return credentialCookie(request, 'lax', maxAgeSeconds)
}

export async function sessionRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['sessions']
  const cache = startAuthRowCache(ctx)
  fastify.addHook('onClose', () => cache.stop())

  app.post(
    '/account/session',
    {
      config: { auth: 'token', idempotent: 'body' },
      schema: {
        tags,
        operationId: 'createSession',
        summary: 'Create a session (locks a license token)',
        description:
          'Needs the auth token only. A previous session of the same account is invalidated at once and ' +
          'its license moves to the new session (`superseded: true` says one was). 402 NO_LICENSE_AVAILABLE when the pool is empty.',
        security: [{ bearerAuth: [] }, { authCookie: [] }],
        response: { 200: SessionResult },
      },
    },
    async (request, reply) => {
      const answer = ({ token, superseded }: CreatedSession) => ({
        success: true as const,
        jwt: token,
        superseded,
      })
      const inCommit = answerInCommit(request, reply, answer)
      const session = await createSession(ctx, request.auth.accountId, inCommit)
      reply.setCookie(
        SESSION_COOKIE,
        session.token,
        sessionCookieOptions(request, Math.floor(ctx.config.sessionTtlMs / 1000)),
      )
      return answer(session)
    },
  )

  app.put(
    '/account/session',
    {
      schema: {
        tags,
        operationId: 'refreshSession',
        summary: 'Keep the current session alive',
        description: `Call at least once per session TTL (default 1 h). Does not cancel a scheduled deletion.`,
        response: { 200: KeepAliveResult },
      },
    },
    async (request, reply) => {
      const expiresAt = await keepAlive(ctx, sessionId(request))
      // A browser holding the session as a cookie would drop it after the first TTL however often
      // it keeps the session alive: the cookie's lifetime follows the session's.
      // Only when the cookies were the credentials: beside complete headers they are ignored.
      const cookieToken = request.auth.via === 'cookies' ? request.cookies[SESSION_COOKIE] : undefined
      if (cookieToken) {
        const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000))
        reply.setCookie(SESSION_COOKIE, cookieToken, sessionCookieOptions(request, maxAge))
      }
      return { success: true as const, expiresAt: new Date(expiresAt).toISOString() }
    },
  )

  app.delete(
    '/account/session',
    {
      schema: {
        tags,
        operationId: 'deleteSession',
        summary: 'Delete the current session',
        description:
          'Takes effect after TESSERA_SESSION_DELETE_DELAY (default 5 min); then its license is free.',
        response: { 200: DeleteResult },
      },
    },
    async (request) => {
      const effectiveAt = await deleteSession(ctx, sessionId(request))
      return { success: true as const, effectiveAt: new Date(effectiveAt).toISOString() }
    },
  )

  logoutRoute(fastify, ctx)
  sessionStateRoute(fastify, ctx)
}
