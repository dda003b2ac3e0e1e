// buildApp(config): the whole API as a Fastify instance, not listening. Tests use app.inject()
// or listen on port 0; `tessera serve` listens on PORT/HOST.
import fastifyCookie from '@fastify/cookie'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino, { type DestinationStream } from 'pino'
import { Type } from 'typebox'
import { accountRoutes, timingDummy } from './modules/accounts/index.ts'
import { annotationRoutes } from './modules/annotations/index.ts'
import { configurationRoutes } from './modules/configurations/index.ts'
import { ConversionWorker, conversionRoutes } from './modules/conversion/index.ts'
import { fileRoutes } from './modules/files/index.ts'
import { sceneRoutes } from './modules/scene/index.ts'
import { authenticateRoutes, sessionRoutes } from './modules/sessions/index.ts'
import { DeliveryWorker, openApiWebhooks, webhookRoutes } from './modules/webhooks/index.ts'
import { operationsRoutes } from './operations.ts'
import { openBlobStore } from './platform/blobs/index.ts'
import type { Config } from './platform/config.ts'
import type { AppContext } from './platform/context.ts'
import { type Db, migrate, openDatabase } from './platform/db/index.ts'
import { frameworkErrors, installHttpKernel } from './platform/http.ts'
import { type InstanceKeys, loadInstanceKeys } from './platform/keys.ts'
import { loggerOptions, requestId, requestLogger } from './platform/logger.ts'
import { TokenService } from './platform/tokens.ts'

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext
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

export const API_VERSION = '0.1.0'
const JSON_BODY_LIMIT = 1024 * 1024

export async function createContext(config: Config, options: BuildOptions = {}): Promise<AppContext> {
  const db = options.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
  if (!options.db) await migrate(db)
  const keys =
    options.keys ??
    (await loadInstanceKeys({ privateKeyFile: config.jwtPrivateKeyFile, dataDir: config.dataDir }))
  const log = pino(loggerOptions(config.logLevel), options.logStream ?? pino.destination(1))
  const blobs = openBlobStore(config.storageUrl)
  return { config, db, blobs, keys, tokens: new TokenService(keys, config.authTokenTtlMs), log }
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
  })
  app.decorate('ctx', ctx)
  app.decorateRequest('auth', null as never)
  if (!options.db) app.addHook('onClose', () => ctx.db.close())
  app.addHook('onClose', () => ctx.blobs.close())
  // Callback style, not async: this runs on every response, and a promise per request shows.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id)
    done(null, payload)
  })

  installHttpKernel(app, { bodyLimit: JSON_BODY_LIMIT })
  // Routes that need no auth declare an empty security requirement in OpenAPI.
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === 'none' && route.schema && !route.schema.hide) route.schema.security = []
  })

  await app.register(fastifyCookie)
  await app.register(fastifySwagger, {
    // Shared schemas appear in components under their $id (Problem, FileRecord, …).
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tessera API',
        version: API_VERSION,
        description:
          'Self-hostable 3D-scene and file platform. Every call needs an auth token and a session ' +
          'token, presented either as headers or as cookies (never both). Errors are RFC 9457 problem ' +
          'documents with a stable `code`.',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Auth token (RS256)',
          },
          sessionHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Service-Session',
            description: 'Session token',
          },
          authCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'jsonwebtoken',
            description: 'Auth token as cookie',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'X-Service-Session',
            description: 'Session as cookie',
          },
        },
      },
      security: [
        { bearerAuth: [], sessionHeader: [] },
        { authCookie: [], sessionCookie: [] },
      ],
      // What receivers get: the envelope and `data` of every event (webhooks/payloads.ts).
      webhooks: openApiWebhooks(),
    },
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } })

  const deliveryMetrics = operationsRoutes(app, ctx)
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
    await fileRoutes(api, ctx)
    await webhookRoutes(api, ctx)
    await sceneRoutes(api, ctx)
    await annotationRoutes(api, ctx)
    await configurationRoutes(api, ctx)
    await conversionRoutes(api, ctx)
  })

  if (options.workers !== false) {
    const deliveries = new DeliveryWorker({ db: ctx.db, config, log: ctx.log, metrics: deliveryMetrics })
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
