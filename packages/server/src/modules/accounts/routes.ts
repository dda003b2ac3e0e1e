import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { LoginBody, LoginResult } from './schemas.ts'
import { login } from './service.ts'

export async function accountRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/account/login/',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['accounts'],
        summary: 'Log in with username and password',
        description:
          'Returns the auth token inside `cookies`. Wrong credentials answer 401 INVALID_CREDENTIALS; ' +
          'repeated failures per username and IP answer 429 TOO_MANY_REQUESTS with Retry-After.',
        body: LoginBody,
        response: { 200: LoginResult },
      },
    },
    async (request) => {
      const result = await login(ctx, { ...request.body, ip: request.ip })
      return {
        success: true as const,
        email: result.account.email,
        username: result.account.username,
        cookies: `jsonwebtoken=${result.token}`,
      }
    },
  )
}
