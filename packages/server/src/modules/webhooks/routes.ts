import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { answerInCommit } from '../../platform/idempotent-routes.ts'
import { deliveryRoutes } from './delivery-routes.ts'
import { AccountRateLimit } from './rate-limit.ts'
import {
  CreatedWebhookAnswer,
  CreateWebhookBody,
  Ok,
  UpdateWebhookBody,
  WebhookAnswer,
  WebhookList,
  WebhookParams,
  WebhookResource,
} from './schemas.ts'
import {
  type CreatedWebhook,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  type Owner,
  updateWebhook,
} from './service.ts'

function owner(request: FastifyRequest): Owner {
  return { accountId: request.auth.accountId, email: request.auth.email }
}

const tags = ['webhooks']
// docs/api.md: webhook calls need the auth token; a session is accepted, not required.
const config = { auth: 'token' as const }
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { authCookie: [] }]

export async function webhookRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  fastify.addSchema(WebhookResource)
  // One budget for create, patch and delete: each may run the secret estimate and a bcrypt hash.
  const manage = new AccountRateLimit(
    ctx.config.webhookManageRate,
    'webhook registrations, changes and deletions',
    'TESSERA_WEBHOOK_MANAGE_RATE',
    'webhook-manage',
  ).hook()
  createAndReadRoutes(fastify, ctx, manage)
  changeRoutes(fastify, ctx, manage)
  await deliveryRoutes(fastify, ctx)
}

type Limit = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/** Registering a webhook, listing them, reading one. */
function createAndReadRoutes(fastify: FastifyInstance, ctx: AppContext, limit: Limit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.put(
    '/webhook/',
    {
      config: { ...config, idempotent: 'body' },
      preHandler: limit,
      schema: {
        tags,
        security,
        operationId: 'createWebhook',
        summary: 'Register a webhook for one event',
        description:
          'The url must be an absolute http(s) URL of a public host (WEBHOOK_URL_INVALID, ' +
          'WEBHOOK_URL_FORBIDDEN, WEBHOOK_URL_UNRESOLVABLE). secretToken: at least 16 characters, not ' +
          'trivially guessable, no invisible characters (WEAK_SECRET); it is never returned. Without ' +
          'secretToken the server generates one (whsec_ + base64 of 32 random bytes) and answers it in ' +
          '`secretToken`, this once. Same event and url twice: 409 CONFLICT. ' +
          'At most 100 webhooks per account: 409 WEBHOOK_LIMIT_REACHED. Create, patch and delete share ' +
          'TESSERA_WEBHOOK_MANAGE_RATE (30) calls per account per minute: 429 TOO_MANY_REQUESTS.',
        body: CreateWebhookBody,
        response: { 200: CreatedWebhookAnswer },
      },
    },
    async (request, reply) => {
      const answer = ({ resource, generatedSecret: secret }: CreatedWebhook) => ({
        success: true as const,
        data: resource,
        ...(secret ? { secretToken: secret } : {}),
      })
      const inCommit = answerInCommit(request, reply, answer)
      return answer(await createWebhook(ctx, owner(request), request.body, inCommit))
    },
  )

  app.get(
    '/webhook/',
    {
      config,
      schema: {
        tags,
        security,
        operationId: 'listWebhooks',
        summary: "List the caller's webhooks",
        response: { 200: WebhookList },
      },
    },
    async (request) => ({ success: true as const, data: await listWebhooks(ctx, owner(request)) }),
  )

  app.get(
    '/webhook/:id',
    {
      config,
      schema: {
        tags,
        security,
        operationId: 'getWebhook',
        summary: 'One webhook',
        params: WebhookParams,
        response: { 200: WebhookAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      data: await getWebhook(ctx, owner(request), request.params.id),
    }),
  )
}

/** Changing a webhook (url, secret, disabled) and deleting it. */
function changeRoutes(fastify: FastifyInstance, ctx: AppContext, limit: Limit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.patch(
    '/webhook/:id',
    {
      config,
      preHandler: limit,
      schema: {
        tags,
        security,
        operationId: 'updateWebhook',
        summary: 'Change the url, rotate the secret, or disable/enable a webhook',
        description:
          'A new secretToken takes effect at once; the previous one keeps signing too (a second ' +
          'webhook-signature) for 24 hours. Disabling pauses queued deliveries.',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: WebhookAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      data: await updateWebhook(ctx, owner(request), request.params.id, request.body),
    }),
  )

  app.delete(
    '/webhook/:id',
    {
      config,
      preHandler: limit,
      schema: {
        tags,
        security,
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook',
        params: WebhookParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await deleteWebhook(ctx, owner(request), request.params.id)
      return { success: true as const }
    },
  )
}
