// Prometheus metrics: one Registry per app (never prom-client's global one), so that several apps
// in one process (tests, CLI beside a server) each expose only their own numbers.
import type { FastifyInstance } from 'fastify'
import { collectDefaultMetrics, Registry } from 'prom-client'
import { Type } from 'typebox'

export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  // Process metrics (CPU, memory, event loop lag, GC) beside the application's own.
  collectDefaultMetrics({ register: registry, prefix: 'tessera_' })
  return registry
}

/** `GET /metrics`: the registry in Prometheus text format, without auth (scrapers have none). */
export function metricsRoute(app: FastifyInstance, registry: Registry): void {
  app.get(
    '/metrics',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['operations'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description:
          'Webhook deliveries by outcome, attempts by error code, delivery latency, due backlog and ' +
          'the age of the oldest due delivery, plus process metrics. Counters cover the deliveries ' +
          'of this process; the backlog gauges are read from the database at scrape time.',
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
    },
    async (_request, reply) => {
      const text = await registry.metrics()
      return reply.type(registry.contentType).send(text)
    },
  )
}
