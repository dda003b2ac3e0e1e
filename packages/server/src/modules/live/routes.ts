// GET /live/files/{fileId}: the live session's WebSocket (docs/live.md). Credentials on the upgrade
// request are checked before it (a refusal answers a problem document and no WebSocket opens);
// without any, the first message brings them.
import fastifyWebsocket from '@fastify/websocket'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { LiveConnection } from './connection.ts'
import { LiveGuard } from './guard.ts'
import { createLiveHub } from './open-hub.ts'
import type { LiveIdentity } from './participant.ts'
import { FileParams, LiveUpgradeResponse } from './schemas.ts'
import { helloIdentity, upgradeIdentity } from './service.ts'

/** ws's own bound, above TESSERA_LIVE_MESSAGE_BYTES: larger messages get `closed` from us first. */
const WS_MAX_PAYLOAD = 64 * 1024

export async function liveRoutes(fastify: FastifyInstance, ctx: AppContext) {
  const hub = createLiveHub(ctx, new LiveGuard(ctx))
  // Before the WebSocket server's own (registered with it, below), which would close the clients
  // without a word: each gets `closed SERVER_SHUTTING_DOWN` and its close handshake first.
  fastify.addHook('preClose', async () => hub.close())
  await fastify.register(fastifyWebsocket, { options: { maxPayload: WS_MAX_PAYLOAD } })
  const upgraded = new WeakMap<FastifyRequest, LiveIdentity>()
  fastify.get<{ Params: { fileId: string } }>(
    '/live/files/:fileId',
    {
      websocket: true,
      config: { auth: 'none' },
      schema: {
        operationId: 'liveSession',
        tags: ['live'],
        summary: 'Live session on a file (WebSocket)',
        description:
          'Upgrade to a WebSocket: presence, cameras, selections, follow and change notices of the people ' +
          'who have the file open. The protocol (messages, bounds, close codes) is in docs/live.md. ' +
          'Credentials as headers or cookies (then the Origin must be allowed), or in the first message.',
        params: FileParams,
        security: [{ bearerAuth: [], sessionHeader: [] }, { authCookie: [], sessionCookie: [] }, {}],
        response: { 101: LiveUpgradeResponse },
      },
      onRequest: async (request) => {
        const { fileId } = request.params
        const identity = await upgradeIdentity(ctx, request, fileId)
        if (identity) upgraded.set(request, identity)
      },
    },
    (socket, request) => {
      const { fileId } = request.params
      const fromUpgrade = upgraded.get(request) ?? null
      new LiveConnection(socket, {
        hub,
        config: ctx.config,
        fileId,
        identify: (hello) => (fromUpgrade ? Promise.resolve(fromUpgrade) : helloIdentity(ctx, hello, fileId)),
        onError: (err) => request.log.error({ err }, 'live session failed'),
      })
    },
  )
}
