// POST /events/test: a sample event into the caller's own live event stream, so that a
// `tessera listen` (or any open GET /events/stream of the caller) sees one without a real change.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { EVENT_NAMES, ID_PATTERN } from '../../contract/index.ts'
import { emitStreamTestEvent } from '../../events/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { StreamHub } from '../../stream/index.ts'
import { AccountRateLimit, testSample } from '../webhooks/index.ts'

const TestEventBody = Type.Object(
  {
    event: Type.Union(
      EVENT_NAMES.map((name) => Type.Literal(name)),
      { description: 'The kind of event to send (400 VALIDATION_FAILED for another name)' },
    ),
  },
  { additionalProperties: false },
)

const TestEventAnswer = Type.Object({
  success: Type.Literal(true),
  testEvent: Type.Object({
    _id: Type.String({ pattern: ID_PATTERN, description: 'The event id: the stream’s `id:` line' }),
    event: Type.Union(EVENT_NAMES.map((name) => Type.Literal(name))),
    file: Type.String({ pattern: ID_PATTERN, description: 'The sample’s made-up file id (names no file)' }),
    uuid: Type.String({
      format: 'uuid',
      description: 'The envelope’s `uuid` on your streams (`webhook-id` when tessera listen forwards it)',
    }),
  }),
})

// Like the stream itself: the auth token, a session accepted but not required.
const config = { auth: 'token' as const }
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { authCookie: [] }]

export function testEventRoute(fastify: FastifyInstance, ctx: AppContext & { eventStream: StreamHub }): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/events/test',
    {
      config,
      // Same budget size as webhook test deliveries, counted apart: `tessera trigger` does both.
      preHandler: new AccountRateLimit(
        ctx.config.webhookTestRate,
        'test events',
        'TESSERA_WEBHOOK_TEST_RATE',
        'event-test',
      ).hook(),
      schema: {
        operationId: 'sendTestEvent',
        tags: ['events'],
        security,
        summary: 'Send a sample event to your own live event stream',
        description:
          'The contract’s sample of the event (what POST /webhook/:id/test sends, about a made-up file ' +
          'id) goes to every open GET /events/stream of the caller, on every server process, and to ' +
          'nobody else; no webhook delivery is made. At most TESSERA_WEBHOOK_TEST_RATE (10) per account ' +
          'per minute, counted apart from webhook tests: 429 TOO_MANY_REQUESTS with Retry-After.',
        body: TestEventBody,
        response: { 200: TestEventAnswer },
      },
    },
    async (request) => {
      const { event } = request.body
      const now = Date.now()
      const { fileId, data } = testSample(ctx, request.auth.email, event, now)
      const sent = await ctx.db.kysely
        .transaction()
        .execute((tx) =>
          emitStreamTestEvent(ctx, tx, { event, readerId: request.auth.accountId, fileId, data, now }),
        )
      return {
        success: true as const,
        testEvent: { _id: sent.eventId, event, file: fileId, uuid: sent.uuid },
      }
    },
  )
}
