// The operations endpoints (`/healthz`, `/readyz`, `/metrics`), served by `tessera serve` beside the
// API and by `tessera worker --metrics-port` on a listener of its own: a split deployment's
// delivery counters live in its worker processes, so each of them must be scrapable.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { createDeliveryMetrics, type DeliveryMetrics } from './modules/webhooks/index.ts'
import type { AppContext } from './platform/context.ts'
import { ping } from './platform/db/index.ts'
import { frameworkErrors, installHttpKernel } from './platform/http.ts'
import { requestId, requestLogger } from './platform/logger.ts'
import { createMetricsRegistry, metricsRoute } from './platform/metrics.ts'

const Ok = Type.Object({ success: Type.Literal(true) })

/** Registers the three routes; returns the metrics a delivery worker of this process reports to. */
export function operationsRoutes(app: FastifyInstance, ctx: AppContext): DeliveryMetrics {
  app.get(
    '/healthz',
    {
      config: { auth: 'none' },
      schema: { tags: ['operations'], summary: 'Liveness', response: { 200: Ok } },
    },
    async () => ({ success: true as const }),
  )
  app.get(
    '/readyz',
    {
      config: { auth: 'none' },
      schema: { tags: ['operations'], summary: 'Storage reachable', response: { 200: Ok } },
    },
    async () => {
      await ping(ctx.db)
      return { success: true as const }
    },
  )
  // Per app, never prom-client's global registry: several apps may share a process.
  const metrics = createMetricsRegistry()
  metricsRoute(app, metrics)
  return createDeliveryMetrics(metrics, ctx.db)
}

export interface OperationsServer {
  /** Where it listens, e.g. `http://127.0.0.1:9464`. */
  address: string
  deliveryMetrics: DeliveryMetrics
  close(): Promise<void>
}

/** `tessera worker --metrics-port`: the operations routes alone, on HOST:port (0 picks a free one). */
export async function startOperationsServer(ctx: AppContext, port: number): Promise<OperationsServer> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    genReqId: requestId,
    childLoggerFactory: requestLogger,
    frameworkErrors,
    // These routes take no body; anything sent is refused long before it matters.
    bodyLimit: 1024,
  })
  installHttpKernel(app, { bodyLimit: 1024 })
  const deliveryMetrics = operationsRoutes(app, ctx)
  const address = await app.listen({ port, host: ctx.config.host })
  return { address, deliveryMetrics, close: () => app.close() }
}
