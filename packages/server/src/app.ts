// buildApp(config): the whole API as a Fastify instance, not listening. Tests use app.inject()
// or listen on port 0; `tessera serve` listens on PORT/HOST.
import fastifyCookie from '@fastify/cookie'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino, { type DestinationStream } from 'pino'
import { Type } from 'typebox'
import { consoleRoutes } from './console.ts'
import { DeliveryWorker } from './delivery/index.ts'
import { type EventPorts, HandOffPort, StreamHub } from './events/index.ts'
import { accountRoutes, timingDummy } from './modules/accounts/index.ts'
import { adminRoutes } from './modules/admin/index.ts'
import { annotationRoutes } from './modules/annotations/index.ts'
import { configurationRoutes } from './modules/configurations/index.ts'
import { ConversionWorker, conversionRoutes, uploadFormatPolicy } from './modules/conversion/index.ts'
import { fileRoutes } from './modules/files/index.ts'
import { sceneRoutes } from './modules/scene/index.ts'
import { authenticateRoutes, sessionRoutes } from './modules/sessions/index.ts'
import { streamRoutes } from './modules/stream/index.ts'
import { webhookRoutes } from './modules/webhooks/index.ts'
import { registerOpenApi } from './openapi.ts'
import { type OperationsServer, operationsRoutes, startOperationsServer } from './operations.ts'
import { openBlobStore } from './platform/blobs/index.ts'
import { registerCors } from './platform/browser.ts'
import type { Config } from './platform/config.ts'
import type { AppContext } from './platform/context.ts'
import { type Db, migrate, openDatabase } from './platform/db/index.ts'
import { tightenDataDir } from './platform/file-modes.ts'
import { frameworkErrors, installHttpKernel } from './platform/http.ts'
import { httpServerOptions, installHttpLimits } from './platform/http-limits.ts'
import { type InstanceKeys, loadInstanceKeys } from './platform/keys.ts'
import { loggerOptions, requestId, requestLogger } from './platform/logger.ts'
import { TokenService } from './platform/tokens.ts'

/**
 * The kernel's context plus the delivery hand-off port (events/hand-off.ts). Modules take it as an
 * AppContext and hand it on to emitEvent, which finds the port there.
 */
export type ServerContext = AppContext & EventPorts

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ServerContext
  }
}

export interface BuildOptions {
  /** Use this database (tests share one per file); otherwise opened from config and closed with the app. */
  db?: Db
  keys?: InstanceKeys
  /** Where log lines go (tests capture them); default stdout. */
  logStream?: DestinationStream
  /** Run the webhook delivery and conversion workers in this process (default true). */
  workers?: boolean
  /** Run the conversion worker (default: as `workers`); tests that never convert turn it off. */
  conversions?: boolean
}

export { API_VERSION } from './openapi.ts'

const JSON_BODY_LIMIT = 1024 * 1024

export async function createContext(config: Config, options: BuildOptions = {}): Promise<ServerContext> {
  // Before the database opens (it makes its files private too, silently): logged once the logger exists.
  const tightened = tightenDataDir(config.dataDir)
  const db = options.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
  if (!options.db) await migrate(db)
  const keys =
    options.keys ??
    (await loadInstanceKeys({ privateKeyFile: config.jwtPrivateKeyFile, dataDir: config.dataDir }))
  const log = pino(loggerOptions(config.logLevel), options.logStream ?? pino.destination(1))
  if (tightened.length > 0) log.warn({ changed: tightened }, 'data dir: group/other access removed')
  const blobs = openBlobStore(config.storageUrl)
  const tokens = new TokenService(keys, config.authTokenTtlMs)
  const eventStream = new StreamHub({ db, config, log, databaseUrl: config.databaseUrl })
  return { config, db, blobs, keys, tokens, log, deliveryHandOff: new HandOffPort(), eventStream }
}

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
    ...httpServerOptions(config),
  })
  installHttpLimits(app, config)
  app.decorate('ctx', ctx)
  app.decorateRequest('auth', null as never)
  if (!options.db) app.addHook('onClose', () => ctx.db.close())
  app.addHook('onClose', () => ctx.blobs.close())
  // Temp blobs of uploads cut short by a crash of a process (this one's predecessor, on restart).
  app.addHook('onReady', async () => {
    await ctx.blobs.sweepTemp?.()
  })
  // Callback style, not async: this runs on every response, and a promise per request shows.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id)
    done(null, payload)
  })

  installHttpKernel(app, { bodyLimit: JSON_BODY_LIMIT })
  // Routes that need no auth declare an empty security requirement in OpenAPI (unless they say more).
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === 'none' && route.schema && !route.schema.hide) route.schema.security ??= []
  })

  await app.register(fastifyCookie)
  await registerCors(app, config.corsOrigins)
  await registerOpenApi(app)

  // With TESSERA_METRICS_LISTEN, /metrics is served on that address instead; onReady, so that a
  // taken address fails the start (an onListen error would only be logged).
  const metricsListen = config.metricsListen
  const operations = operationsRoutes(app, ctx, metricsListen === undefined)
  const deliveryMetrics = operations.deliveryMetrics
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
        summary: 'Public keys of the instance (JWKS)',
        response: { 200: Jwks },
      },
    },
    async () => ctx.keys.jwks,
  )
  app.get('/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async () => app.swagger())

  // The API proper: every route below authenticates as its config says (default: both tokens).
  await app.register(async (api) => {
    api.addHook('onRoute', authenticateRoutes(ctx))
    await accountRoutes(api, ctx)
    await sessionRoutes(api, ctx)
    await fileRoutes(api, ctx, { uploadFormat: uploadFormatPolicy })
    await webhookRoutes(api, ctx)
    await sceneRoutes(api, ctx)
    await annotationRoutes(api, ctx)
    await configurationRoutes(api, ctx)
    await conversionRoutes(api, ctx)
    await adminRoutes(api, ctx)
    await streamRoutes(api, ctx)
  })
  // preClose: open streams end (their connections would hold the close) before the database closes.
  app.addHook('preClose', async () => ctx.eventStream.close())
  await consoleRoutes(app)

  if (options.workers !== false) {
    const deliveries = new DeliveryWorker({
      db: ctx.db,
      config,
      log: ctx.log,
      metrics: deliveryMetrics,
      handOff: ctx.deliveryHandOff,
    })
    app.addHook('onReady', async () => deliveries.start())
    // preClose: before the database closes; in-flight attempts finish, leases are released.
    app.addHook('preClose', async () => deliveries.stop())
  }
  if (options.conversions ?? options.workers !== false) {
    const conversions = new ConversionWorker({ ctx })
    app.addHook('onReady', async () => conversions.start())
    // Running conversions are killed and their jobs re-queued, untouched, for the next worker.
    app.addHook('preClose', async () => conversions.stop())
  }
  return app
}

const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) })
