// The OpenAPI 3.1 document (served at /openapi.json, rendered at /docs, committed as openapi.json):
// security schemes, the webhooks receivers get, and the Swagger UI. Route schemas add themselves.
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { openApiWebhooks } from '../contract/index.ts'
import { finishDocument } from './openapi-document.ts'

const API_VERSION = '0.1.0'

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    // Shared schemas appear in components under their $id (Problem, FileRecord, …).
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Problem answers, response headers, examples and the tag list (openapi-document.ts).
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject) : document.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tessera API',
        version: API_VERSION,
        description:
          'Self-hostable 3D-scene and file platform. Every call needs an auth token and a session ' +
          'token, presented either as headers or as cookies: complete header credentials win over ' +
          'stray cookies, and a real mix is 400 AMBIGUOUS_CREDENTIALS (docs/api.md). Cookie-authenticated ' +
          'writes need X-Tessera-CSRF (or a same-origin Origin). Errors are RFC 9457 problem documents ' +
          'with a stable `code`. Each operation has an `operationId` (the name generated clients give ' +
          'it) and one tag (its area); lists are paged with `limit` and `cursor` (`nextCursor`).',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the document is served by the instance it describes (GET /openapi.json), so a
      // client generated from it calls the origin it was fetched from; set `baseUrl` otherwise.
      servers: [{ url: '/', description: 'The instance serving this document' }],
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
          linkSession: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Link-Session',
            description:
              'Link session (POST /links/open): reads of the linked file on the operations that list it; ' +
              'on every other operation 403 LINK_READ_ONLY or LINK_NOT_ALLOWED',
          },
        },
      },
      security: [
        { bearerAuth: [], sessionHeader: [] },
        { authCookie: [], sessionCookie: [] },
      ],
      // What receivers get: the envelope and `data` of every event (contract/envelope.ts).
      webhooks: openApiWebhooks(),
    },
  })
  // BaseLayout: without Swagger UI's top bar, whose logo carries an inline <style> the page's CSP
  // (platform/http.ts HTML_CSP) refuses; the bar only repeats the document's URL.
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, layout: 'BaseLayout' },
  })
}
