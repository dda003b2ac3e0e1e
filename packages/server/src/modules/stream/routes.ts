import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import type { StreamHub } from '../../stream/index.ts'
import { StreamHeaders, StreamQuery, StreamResponse } from './schemas.ts'
import { serveStream } from './service.ts'
import { testEventRoute } from './test-event.ts'

// Like the webhook routes: the auth token, a session accepted but not required.
const config = { auth: 'token' as const }
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { authCookie: [] }]

export async function streamRoutes(fastify: FastifyInstance, ctx: AppContext & { eventStream: StreamHub }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  testEventRoute(fastify, ctx)
  app.get(
    '/events/stream',
    {
      config,
      schema: {
        operationId: 'streamEvents',
        tags: ['events'],
        security,
        summary: 'Live stream of the events your webhooks would receive (Server-Sent Events)',
        description:
          'Every event on a file the caller may read, as it commits, as the webhook envelope: every event ' +
          'committed after the answer (200) arrived is sent. Resume with the ' +
          'Last-Event-ID header (or ?lastEventId=): every event after that one is sent first; an unknown id ' +
          'answers `event: reset`. ?events=a,b filters (400 VALIDATION_FAILED on an unknown name). Too many ' +
          'open streams: 429 STREAM_LIMIT_REACHED (per account) or STREAMS_BUSY (per server).',
        querystring: StreamQuery,
        headers: StreamHeaders,
        response: { 200: StreamResponse },
      },
    },
    async (request, reply) => {
      const { events, lastEventId } = request.query
      await serveStream(ctx, ctx.eventStream, request, reply, {
        events,
        lastEventId,
        header: request.headers['last-event-id'],
      })
    },
  )
}
