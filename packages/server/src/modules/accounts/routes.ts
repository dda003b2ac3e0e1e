import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { AUTH_COOKIE, credentialCookie, requireCsrfProof, SESSION_COOKIE } from '../../platform/browser.ts'
import type { AppContext } from '../../platform/context.ts'
import { rateLimitListFields } from '../../platform/rate-limit-headers.ts'
import { changePassword } from './changes.ts'
import {
  CurrentAccount,
  CurrentAccountAnswer,
  LoginBody,
  LoginResult,
  PasswordBody,
  PasswordResult,
} from './schemas.ts'
import { login } from './service.ts'

export async function accountRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  fastify.addSchema(CurrentAccount)
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/account/login/',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['accounts'],
        operationId: 'login',
        summary: 'Log in with username and password',
        description:
          'Returns the auth token inside `cookies`. Wrong credentials answer 401 INVALID_CREDENTIALS; ' +
          'repeated failures per username and IP answer 429 TOO_MANY_REQUESTS with Retry-After. With ' +
          '`cookie: true` (browsers) the token is set as the HttpOnly cookie `jsonwebtoken` instead, ' +
          'any X-Service-Session cookie is cleared, and the request needs CSRF proof (403 CSRF_REJECTED).',
        body: LoginBody,
        response: { 200: LoginResult },
      },
    },
    async (request, reply) => {
      const { cookie, ...credentials } = request.body
      // Before the password check: a foreign page must not sign a browser in (login CSRF).
      if (cookie) requireCsrfProof(request, ctx.config.corsOrigins)
      const result = await login(ctx, { ...credentials, ip: request.ip })
      reply.headers(rateLimitListFields(result.rateLimit))
      const answer = {
        success: true as const,
        email: result.account.email,
        username: result.account.username,
      }
      if (!cookie) return { ...answer, cookies: `jsonwebtoken=${result.token}` }
      const maxAge = Math.floor(ctx.config.authTokenTtlMs / 1000)
      reply.setCookie(AUTH_COOKIE, result.token, credentialCookie(request, 'strict', maxAge))
      // A session cookie left from an earlier sign-in (perhaps of another account) would not match.
      if (request.cookies[SESSION_COOKIE] !== undefined) {
        reply.clearCookie(SESSION_COOKIE, credentialCookie(request, 'lax', 0))
      }
      return answer
    },
  )

  app.get(
    '/account/me',
    {
      schema: {
        tags: ['accounts'],
        operationId: 'getCurrentAccount',
        summary: 'Who the presented tokens belong to',
        description:
          'The account of the auth token and session presented (headers or cookies): a browser signed ' +
          'in by cookie learns who it is after a reload, where scripts cannot read the token. Answers ' +
          'from the authentication itself; 401 like any call when the tokens no longer work.',
        response: { 200: CurrentAccountAnswer },
      },
    },
    async (request) => {
      const { accountId, email, username, isAdmin } = request.auth
      return { success: true as const, account: { id: accountId, email, username, isAdmin } }
    },
  )

  app.put(
    '/account/password',
    {
      schema: {
        tags: ['accounts'],
        operationId: 'changePassword',
        summary: 'Change your password',
        description:
          'Needs the current password (403 WRONG_PASSWORD; failures count like failed logins, 429 past ' +
          'the limit). The new one follows the creation rule (at least 10 characters, else 400). The ' +
          'session stays valid; every auth token issued before the change is refused from the answer ' +
          'on, by every process (401 TOKEN_REVOKED). The answer carries a fresh auth token in ' +
          '`cookies` (or, when the token came as a cookie, sets the cookie to it).',
        body: PasswordBody,
        response: { 200: PasswordResult },
      },
    },
    async (request, reply) => {
      const { token, rateLimit } = await changePassword(ctx, request.auth.accountId, {
        ...request.body,
        ip: request.ip,
      })
      reply.headers(rateLimitListFields(rateLimit))
      if (request.auth.via === 'headers') return { success: true as const, cookies: `jsonwebtoken=${token}` }
      const maxAge = Math.floor(ctx.config.authTokenTtlMs / 1000)
      reply.setCookie(AUTH_COOKIE, token, credentialCookie(request, 'strict', maxAge))
      return { success: true as const }
    },
  )
}
