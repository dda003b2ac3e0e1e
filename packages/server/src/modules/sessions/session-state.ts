// Whether the request's credentials hold a working session, as a 200 either way: a browser asks it
// on load, so a signed-out visit makes no failing request (a keep-alive without cookies would be a
// 401 in the browser's console). The cookies stay HttpOnly: the page learns only a yes or no about
// its own cookies, which it could learn from any call; a foreign page cannot read the answer (CORS).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { resolvePrincipal } from './authenticate.ts'

const SessionState = Type.Object({
  success: Type.Literal(true),
  signedIn: Type.Boolean({
    description: 'true when the credentials sent (cookies or headers) hold a session that works now',
  }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'why not: the code a session call would be refused with (`AUTH_TOKEN_MISSING` when nothing ' +
      'was sent, `SESSION_SUPERSEDED`, `SESSION_EXPIRED`, …); null when signed in',
  }),
})

export function sessionStateRoute(fastify: FastifyInstance, ctx: AppContext): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get(
    '/account/session/state',
    {
      // Judged by the handler: missing or dead credentials are an answer here, not a 401.
      config: { auth: 'none' },
      schema: {
        tags: ['sessions'],
        operationId: 'sessionState',
        summary: 'Whether the credentials sent hold a working session (200 either way)',
        description:
          'For browsers on load: `signedIn: false` with the reason instead of a 401, so a signed-out ' +
          'visit logs no failed request. Changes nothing (no keep-alive, no cookie).',
        security: [{}, { bearerAuth: [], sessionHeader: [] }, { authCookie: [], sessionCookie: [] }],
        response: { 200: SessionState },
      },
    },
    async (request) => {
      try {
        await resolvePrincipal(ctx, request, 'session')
        return { success: true as const, signedIn: true, reason: null }
      } catch (error) {
        if (error instanceof AppError && error.status < 500) {
          return { success: true as const, signedIn: false, reason: error.code }
        }
        throw error
      }
    },
  )
}
