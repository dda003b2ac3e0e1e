import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { SESSION_COOKIE } from './authenticate.ts'
import { DeleteResult, KeepAliveResult, SessionResult } from './schemas.ts'
import { createSession, deleteSession, keepAlive } from './service.ts'

function sessionId(request: { auth: { sessionId: string | null } }): string {
  // Routes below require a session, so the hook has set it.
  return request.auth.sessionId ?? ''
}

export async function sessionRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['sessions']

  app.post(
    '/account/session',
    {
      config: { auth: 'token' },
      schema: {
        tags,
        summary: 'Create a session (locks a license token)',
        description:
          'Needs the auth token only. A previous session of the same account is invalidated at once and ' +
          'its license moves to the new session. 402 NO_LICENSE_AVAILABLE when the pool is empty.',
        security: [{ bearerAuth: [] }, { authCookie: [] }],
        response: { 200: SessionResult },
      },
    },
    async (request, reply) => {
      const session = await createSession(ctx, request.auth.accountId)
      reply.setCookie(SESSION_COOKIE, session.token, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure: request.protocol === 'https',
        maxAge: Math.floor(ctx.config.sessionTtlMs / 1000),
      })
      return { success: true as const, jwt: session.token }
    },
  )

  app.put(
    '/account/session',
    {
      schema: {
        tags,
        summary: 'Keep the current session alive',
        description: `Call at least once per session TTL (default 1 h). Does not cancel a scheduled deletion.`,
        response: { 200: KeepAliveResult },
      },
    },
    async (request) => {
      const expiresAt = await keepAlive(ctx, sessionId(request))
      return { success: true as const, expiresAt: new Date(expiresAt).toISOString() }
    },
  )

  app.delete(
    '/account/session',
    {
      schema: {
        tags,
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
}
