// The operations endpoints (`/healthz`, `/readyz`, `/metrics`), served by `tessera-server serve` beside the
// API and by `tessera-server worker --metrics-port` on a listener of its own: a split deployment's
// delivery counters live in its worker processes, so each of them must be scrapable.
import { createHash, timingSafeEqual } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type onRequestHookHandler } from 'fastify'
import type { Registry } from 'prom-client'
import { Type } from 'typebox'
import { createDeliveryMetrics, type DeliveryMetrics } from '../delivery/index.ts'
import { registerListingCacheMetrics } from '../modules/files/index.ts'
import type { AppContext } from '../platform/context.ts'
import { ping } from '../platform/db/index.ts'
import { AppError } from '../platform/errors.ts'
import { frameworkErrors, installHttpKernel } from '../platform/http.ts'
import { httpServerOptions, installHttpLimits } from '../platform/http-limits.ts'
import { requestId, requestLogger } from '../platform/logger.ts'
import { createMetricsRegistry, metricsRoute } from '../platform/metrics.ts'

const Ok = Type.Object({ success: Type.Literal(true) })

export interface OperationsRoutes {
  /** The metrics a delivery worker of this process reports to. */
  deliveryMetrics: DeliveryMetrics
  registry: Registry
}

/**
 * Registers `/healthz`, `/readyz` and (unless `withMetrics` is false: it is served elsewhere)
 * `/metrics`, behind TESSERA_METRICS_TOKEN when that is set.
 */
export function operationsRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  withMetrics = true,
): OperationsRoutes {
  healthRoutes(app, ctx)
  // Per app, never prom-client's global registry: several apps may share a process.
  const registry = createMetricsRegistry()
  if (withMetrics) protectedMetricsRoute(app, registry, ctx.config.metricsToken)
  registerListingCacheMetrics(registry, ctx)
  return { deliveryMetrics: createDeliveryMetrics(registry, ctx.db), registry }
}

function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/healthz',
    {
      config: { auth: 'none' },
      schema: { tags: ['operations'], operationId: 'getHealth', summary: 'Liveness', response: { 200: Ok } },
    },
    async () => ({ success: true as const }),
  )
  app.get(
    '/readyz',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['operations'],
        operationId: 'getReadiness',
        summary: 'Storage reachable',
        response: { 200: Ok },
      },
    },
    async () => {
      await ping(ctx.db)
      return { success: true as const }
    },
  )
}

function protectedMetricsRoute(app: FastifyInstance, registry: Registry, token: string | undefined): void {
  if (token !== undefined) {
    const check = bearerCheck(token)
    app.addHook('onRoute', (route) => {
      if (route.url === '/metrics')
        route.onRequest = [check, ...(route.onRequest ? [route.onRequest].flat() : [])]
    })
  }
  metricsRoute(app, registry)
}

/** onRequest: the request must carry `Authorization: Bearer <token>`; compared in constant time. */
function bearerCheck(token: string): onRequestHookHandler {
  const expected = digest(token)
  const challenge = { 'www-authenticate': 'Bearer realm="metrics"' }
  return (request, _reply, done) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')
    if (!match) return done(new AppError('AUTH_TOKEN_MISSING', 'The metrics need a bearer token.', challenge))
    // Hashing first makes the comparison constant-time whatever the length of the guess.
    if (!timingSafeEqual(digest(match[1] ?? ''), expected)) {
      return done(new AppError('AUTH_TOKEN_INVALID', 'Wrong metrics token.', challenge))
    }
    done()
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

export interface OperationsServer {
  /** Where it listens, e.g. `http://127.0.0.1:9464`. */
  address: string
  deliveryMetrics: DeliveryMetrics
  close(): Promise<void>
}

/**
 * The operations routes alone on a listener of their own: `tessera-server worker --metrics-port` (or
 * TESSERA_METRICS_LISTEN), and `tessera-server serve` with TESSERA_METRICS_LISTEN (then `shared`: the
 * API app's metrics). Port 0 picks a free one.
 */
export async function startOperationsServer(
  ctx: AppContext,
  listen: { host: string; port: number },
  shared?: OperationsRoutes,
): Promise<OperationsServer> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    genReqId: requestId,
    childLoggerFactory: requestLogger,
    frameworkErrors,
    // These routes take no body; anything sent is refused long before it matters.
    bodyLimit: 1024,
    ...httpServerOptions(ctx.config),
  })
  installHttpLimits(app, ctx.config)
  installHttpKernel(app, { bodyLimit: 1024 })
  let routes: OperationsRoutes
  if (shared) {
    healthRoutes(app, ctx)
    protectedMetricsRoute(app, shared.registry, ctx.config.metricsToken)
    routes = shared
  } else {
    routes = operationsRoutes(app, ctx)
  }
  const address = await app.listen(listen)
  return { address, deliveryMetrics: routes.deliveryMetrics, close: () => app.close() }
}
