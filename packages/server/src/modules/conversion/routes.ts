import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { blobResponses, sendBlob } from '../../platform/downloads.ts'
import { sendJsonText } from '../../platform/http.ts'
import { optimizedDownload, sceneTreeText } from './access.ts'
import { FileParams, SceneTreeAnswer } from './schemas.ts'

export async function conversionRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['files']

  app.get(
    '/file/:id/optimized',
    {
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'downloadOptimizedFile',
        summary: 'The optimized GLB of the current revision',
        description:
          'Owner, editors, viewers and the file’s link sessions, once the file is `ready` (409 NOT_READY while queued or ' +
          'converting, and after a failed conversion). Binary glTF 2.0 with EXT_meshopt_compression ' +
          'and KHR_mesh_quantization; every node carries its scene-tree ID in `extras.tesseraId`. ETag, ' +
          'If-None-Match and a single Range work as for /download.',
        params: FileParams,
        response: blobResponses('The GLB', 'model/gltf-binary', { ranges: true }),
      },
    },
    async (request, reply) => {
      const download = await optimizedDownload(ctx, request.auth.accountId, request.params.id)
      return sendBlob(request, reply, ctx.blobs, download)
    },
  )

  app.get(
    '/file/:id/scene-tree',
    {
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'getSceneTree',
        summary: "The file's scene tree",
        description:
          'Owner, editors, viewers and the file’s link sessions, once the file is `ready` (409 NOT_READY before). Node IDs are ' +
          'stable for the same input (see docs/conversion.md) and are the IDs scene attributes use.',
        params: FileParams,
        response: { 200: SceneTreeAnswer },
      },
    },
    // The tree is spliced in as kept text: the route's serializer would rebuild it node by node.
    async (request, reply) =>
      sendJsonText(
        reply,
        `{"success":true,"tree":${await sceneTreeText(ctx, request.auth.accountId, request.params.id)}}`,
      ),
  )
}
