// The admin console's API: accounts and the license pool. Admins only: anyone else gets 403
// FORBIDDEN (the routes are in the public OpenAPI document, so hiding them behind 404 hides nothing).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { AccountView, createAccount, listAccountsPage } from '../accounts/index.ts'
import { licenseUsage } from '../sessions/index.ts'
import {
  AccountAnswer,
  AccountParams,
  AccountPatch,
  AccountsList,
  AccountsQuery,
  Licenses,
  NewAccountBody,
} from './schemas.ts'
import { setDisabled } from './service.ts'

async function requireAdmin(request: FastifyRequest): Promise<void> {
  if (!request.auth.isAdmin) throw new AppError('FORBIDDEN', 'Only administrators may do this.')
}

export async function adminRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  fastify.addSchema(AccountView)
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['admin']
  // preValidation: after authentication (onRequest), before the body is checked: a non-admin learns
  // nothing about what the route would accept.
  const admin = { preValidation: requireAdmin }

  app.get(
    '/admin/accounts',
    {
      ...admin,
      schema: {
        tags,
        operationId: 'listAccounts',
        summary: 'List accounts (admins only)',
        description: 'In creation order, `limit` per page (default and maximum 1,000).',
        querystring: AccountsQuery,
        response: { 200: AccountsList },
      },
    },
    async (request) => {
      const page = await listAccountsPage(ctx, {
        cursor: request.query.cursor,
        limit: request.query.limit === undefined ? 1000 : Number(request.query.limit),
      })
      return { success: true as const, ...page }
    },
  )

  app.post(
    '/admin/accounts',
    {
      ...admin,
      schema: {
        tags,
        operationId: 'createAccount',
        summary: 'Create an account (admins only)',
        description:
          'The rules of `tessera accounts create`: usernames 1-64 of a-z 0-9 . _ -, passwords at least ' +
          '10 characters (400 VALIDATION_FAILED); a username or e-mail already taken is 409 CONFLICT.',
        body: NewAccountBody,
        response: { 200: AccountAnswer },
      },
    },
    async (request) => ({ success: true as const, account: await createAccount(ctx, request.body) }),
  )

  app.patch(
    '/admin/accounts/:id',
    {
      ...admin,
      schema: {
        tags,
        operationId: 'updateAccount',
        summary: 'Disable or enable an account (admins only)',
        description:
          'Disabling ends the account’s session in the same transaction (its license is free at once) ' +
          'and its tokens are refused from then on. An admin cannot disable their own account (400). ' +
          'A change that would leave no enabled administrator (two admins disabling each other at ' +
          'once: the second) answers 409 LAST_ADMIN.',
        params: AccountParams,
        body: AccountPatch,
        response: { 200: AccountAnswer },
      },
    },
    async (request) => {
      if (request.body.disabled && request.params.id === request.auth.accountId) {
        throw new AppError('VALIDATION_FAILED', 'You cannot disable your own account.')
      }
      const account = await setDisabled(ctx, request.auth.accountId, request.params.id, request.body.disabled)
      if (!account) throw new AppError('NOT_FOUND', `No account ${request.params.id}.`)
      return { success: true as const, account }
    },
  )

  app.get(
    '/admin/licenses',
    {
      ...admin,
      // The auth token is enough: an admin must see who holds the licenses when none is free, and
      // looking must not take one (nor supersede the admin's own session).
      config: { auth: 'token' },
      schema: {
        tags,
        operationId: 'getLicenses',
        summary: 'The license pool: licenses in use and who holds them (admins only)',
        response: { 200: Licenses },
      },
    },
    async () => ({ success: true as const, ...(await licenseUsage(ctx)) }),
  )
}
