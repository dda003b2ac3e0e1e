// Sign-out for browsers (and any client that wants its license back at once): the session ends
// now, not after the grace period of DELETE /account/session, and both credential cookies are
// cleared. It also answers 200 when the session is already over, so a browser can always sign out.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { AUTH_COOKIE, credentialCookie, requireCsrfProof, SESSION_COOKIE } from '../../platform/browser.ts'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { resolvePrincipal } from './authenticate.ts'
import { readCredentials } from './credentials.ts'
import { endSessionNow } from './service.ts'

const LogoutResult = Type.Object({
  success: Type.Literal(true),
  ended: Type.Boolean({ description: 'true when a valid session was ended (its license is free now)' }),
})

export function logoutRoute(fastify: FastifyInstance, ctx: AppContext): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().post(
    '/account/logout',
    {
      // Authenticated by the handler: an expired or superseded session still gets its cookies cleared.
      config: { auth: 'none' },
      schema: {
        tags: ['sessions'],
        operationId: 'logout',
        summary: 'Sign out: end the session now and clear the cookies',
        description:
          'Ends the presented session at once (its license is free at once; DELETE /account/session ' +
          'keeps its grace period) and clears the `jsonwebtoken` and `X-Service-Session` cookies. Answers ' +
          '200 also when the tokens are missing or no longer valid (`ended: false`). Cookie callers need ' +
          'CSRF proof (403 CSRF_REJECTED). The auth token itself stays valid until it expires.',
        security: [{}, { bearerAuth: [], sessionHeader: [] }, { authCookie: [], sessionCookie: [] }],
        response: { 200: LogoutResult },
      },
    },
    async (request, reply) => {
      // Before anything else: a foreign page must not end a browser's session or drop its cookies.
      const { source } = readCredentials(request, 'session')
      if (source === 'cookies') requireCsrfProof(request, ctx.config.corsOrigins)
      let ended = false
      if (source !== null) {
        try {
          const principal = await resolvePrincipal(ctx, request, 'session')
          if (principal.sessionId !== null) await endSessionNow(ctx, principal.sessionId)
          ended = true
        } catch (error) {
          // Tokens that no longer authenticate: nothing to end, the cookies still go.
          if (!(error instanceof AppError && error.status === 401)) throw error
        }
      }
      reply.clearCookie(AUTH_COOKIE, credentialCookie(request, 'strict', 0))
      reply.clearCookie(SESSION_COOKIE, credentialCookie(request, 'lax', 0))
      return { success: true as const, ended }
    },
  )
}
