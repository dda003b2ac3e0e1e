// buildApp(config): the whole API as a Fastify instance, not listening. Tests use app.inject()
// or listen on port 0; `tessera-server serve` listens on PORT/HOST.
import fastifyCookie from '@fastify/cookie'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { Type } from 'typebox'
import { type DeliveryMetrics, DeliveryWorker } from '../delivery/index.ts'
import { EventRetention } from '../events/index.ts'
import { accountRoutes, timingDummy } from '../modules/accounts/index.ts'
import { adminRoutes } from '../modules/admin/index.ts'
import { annotationRoutes } from '../modules/annotations/index.ts'
import { bcfRoutes } from '../modules/bcf/index.ts'
import { configurationRoutes } from '../modules/configurations/index.ts'
import { ConversionWorker, conversionRoutes, uploadFormatPolicy } from '../modules/conversion/index.ts'
import { discussionRoutes } from '../modules/discussions/index.ts'
import { fileRoutes, sweepPrunedRevisions } from '../modules/files/index.ts'
import { LinkLimits, linkRoutes, linkSessionResolver } from '../modules/links/index.ts'
import { liveRoutes } from '../modules/live/index.ts'
import { sceneRoutes } from '../modules/scene/index.ts'
import { authenticateRoutes, sessionRoutes } from '../modules/sessions/index.ts'
import { streamRoutes } from '../modules/stream/index.ts'
import { webhookRoutes } from '../modules/webhooks/index.ts'
import { registerCors } from '../platform/browser.ts'
import type { Config } from '../platform/config.ts'
import { frameworkErrors, installHttpKernel } from '../platform/http.ts'
import { httpServerOptions, installHttpLimits } from '../platform/http-limits.ts'
import { idempotencyStore, idempotentRoutes } from '../platform/idempotent-routes.ts'
import { requestId, requestLogger } from '../platform/logger.ts'
import { consoleRoutes } from './console.ts'
import { registerOpenApi } from './openapi.ts'
import { type OperationsServer, operationsRoutes, startOperationsServer } from './operations.ts'
import { type BuildOptions, createContext, type ServerContext } from './server-context.ts'

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ServerContext
  }
}

export type { BuildOptions }

const JSON_BODY_LIMIT = 1024 * 1024

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const ctx = await createContext(config, options)
  // Computed before the first login so that unknown users never answer faster than known ones.
  await timingDummy()
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    genReqId: requestId,
    childLoggerFactory: requestLogger,
    frameworkErrors,
    bodyLimit: JSON_BODY_LIMIT,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true } },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
    // X-Forwarded-For/-Proto/-Host only from the configured proxies (TESSERA_TRUST_PROXY).
    ...trustProxyOption(config),
    ...httpServerOptions(config),
  })
  installHttpLimits(app, config)
  app.decorate('ctx', ctx)
  app.decorateRequest('auth', null as never)
  app.decorateRequest('idempotencyKey', null)
  app.decorateRequest('idempotencyKeyStored', false)
  installLifecycle(app, ctx, options)
  installHttpKernel(app, { bodyLimit: JSON_BODY_LIMIT })
  // Routes that need no auth declare an empty security requirement in OpenAPI (unless they say more);
  // routes that take link sessions (modules/links) add the link session to the usual credentials.
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return
    if (route.config?.auth === 'none') route.schema.security ??= []
    else if (route.config?.auth === 'link') route.schema.security ??= [{ linkSession: [] }]
    else if (route.config?.link === 'read')
      route.schema.security ??= [...ACCOUNT_SECURITY, { linkSession: [] }]
  })

  await app.register(fastifyCookie)
  await registerCors(app, config.corsOrigins)
  await registerOpenApi(app)
  const { deliveryMetrics } = installOperations(app, ctx)
  await registerApi(app, ctx)
  await consoleRoutes(app)
  startWorkers(app, ctx, options, deliveryMetrics)
  return app
}

/** Closing what the app opened, the sweeps after a crash, and the request id on every answer. */
function installLifecycle(app: FastifyInstance, ctx: ServerContext, options: BuildOptions): void {
  if (!options.db) app.addHook('onClose', () => ctx.db.close())
  app.addHook('onClose', () => ctx.blobs.close())
  // Temp blobs of uploads cut short by a crash of a process (this one's predecessor, on restart),
  // and blobs of dropped file revisions whose removal a crash interrupted.
  app.addHook('onReady', async () => {
    await ctx.blobs.sweepTemp?.()
    await sweepPrunedRevisions(ctx)
  })
  // Callback style, not async: this runs on every response, and a promise per request shows.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id)
    done(null, payload)
  })
}

/** /metrics, /healthz, /readyz (here or on TESSERA_METRICS_LISTEN), the JWKS and the OpenAPI document. */
function installOperations(app: FastifyInstance, ctx: ServerContext) {
  // With TESSERA_METRICS_LISTEN, /metrics is served on that address instead; onReady, so that a
  // taken address fails the start (an onListen error would only be logged).
  const metricsListen = ctx.config.metricsListen
  const operations = operationsRoutes(app, ctx, metricsListen === undefined)
  if (metricsListen) {
    let server: OperationsServer | undefined
    app.addHook('onReady', async () => {
      server = await startOperationsServer(ctx, metricsListen, operations)
      ctx.log.info({ address: server.address }, 'operations routes (/metrics, /healthz, /readyz) listening')
    })
    app.addHook('onClose', async () => server?.close())
  }
  app.get(
    '/.well-known/jwks.json',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['operations'],
        operationId: 'getJwks',
        summary: 'Public keys of the instance (JWKS)',
        response: { 200: Jwks },
      },
    },
    async () => ctx.keys.jwks,
  )
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger())
  return operations
}

const ACCOUNT_SECURITY: Array<Record<string, string[]>> = [
  { bearerAuth: [], sessionHeader: [] },
  { authCookie: [], sessionCookie: [] },
]

/** The API proper: every route authenticates as its config says (default: both tokens). */
async function registerApi(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  await app.register(async (api) => {
    const linkLimits = new LinkLimits(ctx)
    api.addHook('onRoute', authenticateRoutes(ctx, linkSessionResolver(ctx, linkLimits)))
    api.addHook('onRoute', idempotentRoutes(idempotencyStore(ctx)))
    await accountRoutes(api, ctx)
    await sessionRoutes(api, ctx)
    await fileRoutes(api, ctx, { uploadFormat: uploadFormatPolicy })
    linkRoutes(api, ctx, linkLimits)
    await webhookRoutes(api, ctx)
    await sceneRoutes(api, ctx)
    await annotationRoutes(api, ctx)
    await discussionRoutes(api, ctx)
    await configurationRoutes(api, ctx)
    await bcfRoutes(api, ctx)
    await conversionRoutes(api, ctx)
    await adminRoutes(api, ctx)
    await streamRoutes(api, ctx)
    await liveRoutes(api, ctx)
  })
  // preClose: open streams end (their connections would hold the close) before the database closes.
  app.addHook('preClose', async () => ctx.eventStream.close())
}

/** The delivery and conversion workers of this process, unless the options leave them out. */
function startWorkers(
  app: FastifyInstance,
  ctx: ServerContext,
  options: BuildOptions,
  metrics: DeliveryMetrics,
): void {
  if (options.workers !== false) {
    const deliveries = new DeliveryWorker({
      db: ctx.db,
      config: ctx.config,
      log: ctx.log,
      metrics,
      handOff: ctx.deliveryHandOff,
    })
    const retention = new EventRetention(ctx.db, ctx.config, ctx.log)
    app.addHook('onReady', async () => {
      deliveries.start()
      retention.start()
    })
    // preClose: before the database closes; in-flight attempts finish, leases are released.
    app.addHook('preClose', async () => {
      await Promise.all([deliveries.stop(), retention.stop()])
    })
  }
  if (options.conversions ?? options.workers !== false) {
    const conversions = new ConversionWorker({ ctx })
    app.addHook('onReady', async () => conversions.start())
    // Running conversions are killed and their jobs re-queued, untouched, for the next worker.
    app.addHook('preClose', async () => conversions.stop())
  }
}

/** Fastify's option; a hop count as the function Fastify makes of one (its types take no number). */
function trustProxyOption(config: Config): Pick<FastifyServerOptions, 'trustProxy'> {
  const trust = config.trustProxy
  if (typeof trust !== 'number') return { trustProxy: trust }
  return { trustProxy: (_address: string, hop: number) => hop < trust }
}

const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) })
