// Routes of the delivery log and its operations (docs/webhooks.md, "The delivery log").
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { getDelivery, listDeliveries, recoverDeliveries, retryDelivery, sendTestEvent } from './deliveries.ts'
import { AccountRateLimit } from './rate-limit.ts'
import {
  DeliveryAnswer,
  DeliveryDetail,
  DeliveryDetailAnswer,
  DeliveryList,
  DeliveryListQuery,
  DeliveryParams,
  DeliverySummary,
  RecoverAnswer,
  RecoverBody,
  WebhookParams,
} from './schemas.ts'
import type { Owner } from './service.ts'

function owner(request: FastifyRequest): Owner {
  return { accountId: request.auth.accountId, email: request.auth.email }
}

const tags = ['webhooks']
const config = { auth: 'token' as const }
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { authCookie: [] }]

export async function deliveryRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  fastify.addSchema(DeliverySummary)
  fastify.addSchema(DeliveryDetail)
  logRoutes(fastify, ctx)
  operationRoutes(fastify, ctx)
}

/** Reading the log: a page of deliveries, one delivery with its attempts. */
function logRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/webhook/:id/deliveries',
    {
      config,
      schema: {
        tags,
        security,
        operationId: 'listDeliveries',
        summary: "The webhook's delivery log, newest first",
        description:
          'Keyset pagination: pass the answer’s nextCursor as cursor for the next page (null on the ' +
          'last one). status filters by delivery status.',
        params: WebhookParams,
        querystring: DeliveryListQuery,
        response: { 200: DeliveryList },
      },
    },
    async (request) => {
      const { status, cursor, limit } = request.query
      const page = await listDeliveries(ctx, owner(request), request.params.id, {
        status,
        cursor,
        limit: limit === undefined ? undefined : Number(limit),
      })
      return { success: true as const, ...page }
    },
  )

  app.get(
    '/webhook/:id/deliveries/:deliveryId',
    {
      config,
      schema: {
        tags,
        security,
        operationId: 'getDelivery',
        summary: 'One delivery with its payload and every attempt',
        params: DeliveryParams,
        response: { 200: DeliveryDetailAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      delivery: await getDelivery(ctx, owner(request), request.params.id, request.params.deliveryId),
    }),
  )
}

/** Acting on deliveries: retry one, recover a period, send a test event. */
function operationRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/webhook/:id/deliveries/:deliveryId/retry',
    {
      config,
      schema: {
        tags,
        security,
        operationId: 'retryDelivery',
        summary: 'Re-queue one delivery now',
        description:
          'Works in every state, failed and succeeded included; the delivery keeps its uuid. A failed ' +
          'delivery gets one more attempt. 409 DELIVERY_IN_PROGRESS while an attempt is in flight; ' +
          '409 WEBHOOK_DISABLED while the webhook is disabled (test deliveries excepted).',
        params: DeliveryParams,
        response: { 200: DeliveryAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      delivery: await retryDelivery(ctx, owner(request), request.params.id, request.params.deliveryId),
    }),
  )

  app.post(
    '/webhook/:id/recover',
    {
      config,
      schema: {
        tags,
        security,
        operationId: 'recoverDeliveries',
        summary: 'Re-queue failed and paused deliveries since a moment',
        description:
          'Deliveries of events created at or after since (ISO 8601 or Unix milliseconds) that failed ' +
          'or are paused go out again now; failed ones get one more attempt. A disabled webhook is ' +
          'enabled again (reenabled: true) and all its paused deliveries are released.',
        params: WebhookParams,
        body: RecoverBody,
        response: { 200: RecoverAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await recoverDeliveries(ctx, owner(request), request.params.id, request.body.since)),
    }),
  )

  app.post(
    '/webhook/:id/test',
    {
      config,
      preHandler: new AccountRateLimit(
        ctx.config.webhookTestRate,
        'webhook test deliveries',
        'TESSERA_WEBHOOK_TEST_RATE',
        'webhook-test',
      ).hook(),
      schema: {
        tags,
        security,
        operationId: 'testWebhook',
        summary: 'Send a sample event of the webhook’s kind',
        description:
          'The sample is shaped like the real event and goes through the normal delivery machinery ' +
          '(signatures, retries, delivery log) with the header x-service-test: 1. It is sent even ' +
          'while the webhook is disabled and never counts towards its health. At most ' +
          'TESSERA_WEBHOOK_TEST_RATE (10) per account per minute: 429 TOO_MANY_REQUESTS with Retry-After.',
        params: WebhookParams,
        response: { 200: DeliveryAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      delivery: await sendTestEvent(ctx, owner(request), request.params.id),
    }),
  )
}
