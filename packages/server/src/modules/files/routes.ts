// The files API: one file (read, download, delete); directory listings in listing/routes.ts, uploads
// in upload/routes.ts, revision history in revisions/routes.ts, sharing in sharing/routes.ts,
// favourites (stars) in favourites/routes.ts.
// Registered in this order, which is the OpenAPI document's order.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { blobResponses, sendBlob } from '../../platform/downloads.ts'
import { favouriteRoutes } from './favourites/routes.ts'
import { listingRoutes } from './listing/routes.ts'
import { listingStoreFor } from './listing/store.ts'
import { liveMeetingsRoute } from './live-meetings/routes.ts'
import { revisionRoutes } from './revisions/routes.ts'
import { FileAnswer, FileParams, FileRecord, FileView, Ok } from './schemas.ts'
import { deleteFile, getFile, originalDownload } from './service.ts'
import { shareRoutes } from './sharing/routes.ts'
import { thumbnailRoute } from './thumbnail-route.ts'
import type { UploadFormatPolicy } from './upload/format.ts'
import { uploadRoute } from './upload/routes.ts'
import { answerSerializer, fileAnswerText } from './view-text.ts'

/** `uploadFormat` decides which uploads can be converted (the conversion module's policy). */
export async function fileRoutes(
  fastify: FastifyInstance,
  ctx: AppContext,
  options: { uploadFormat: UploadFormatPolicy },
): Promise<void> {
  fastify.addSchema(FileRecord)
  fastify.addSchema(FileView)
  // The database's way of reading listings and records, chosen once here (listing/store.ts).
  const store = listingStoreFor(ctx)
  fastify.addHook('onClose', async () => {
    await store.stop?.()
  })
  listingRoutes(fastify, ctx, store)
  await uploadRoute(fastify, ctx, options.uploadFormat)
  oneFileRoutes(fastify, ctx)
  revisionRoutes(fastify, ctx)
  thumbnailRoute(fastify, ctx)
  shareRoutes(fastify, ctx)
  favouriteRoutes(fastify, ctx)
  liveMeetingsRoute(fastify, ctx)
}

function oneFileRoutes(fastify: FastifyInstance, ctx: AppContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['files']

  app.get(
    '/file/:id',
    {
      config: { link: 'read' },
      schema: {
        tags,
        operationId: 'getFile',
        summary: 'One file record',
        description:
          'Owner, editors, viewers and the file’s link sessions (docs/api.md, "Links"); 404 for anyone else.',
        params: FileParams,
        response: { 200: FileAnswer },
      },
      // The FileAnswer schema's answer, the kept view's text kept with it (view-text.ts).
      serializerCompiler: answerSerializer(fileAnswerText),
    },
    async (request) => ({
      success: true as const,
      file: await getFile(ctx, request.auth.accountId, request.params.id),
    }),
  )

  app.get(
    '/file/:id/download',
    {
      schema: {
        tags,
        operationId: 'downloadFile',
        summary: 'The original bytes of the current revision',
        description:
          'Owner, editors and viewers. ETag is the sha256 of the content; If-None-Match answers 304. ' +
          'A single `Range: bytes=…` answers 206 with Content-Range (416 RANGE_NOT_SATISFIABLE past the ' +
          'end); If-Range is honoured.',
        params: FileParams,
        response: blobResponses('The file', 'application/octet-stream', { ranges: true }),
      },
    },
    async (request, reply) => {
      const download = await originalDownload(ctx, request.auth.accountId, request.params.id)
      return sendBlob(request, reply, ctx.blobs, download)
    },
  )

  app.delete(
    '/file/:id',
    {
      schema: {
        tags,
        operationId: 'deleteFile',
        summary: 'Delete a file, its shares and its blobs',
        description: 'Owner only (403 for editors and viewers, 404 for anyone else).',
        params: FileParams,
        response: { 200: Ok },
      },
    },
    async (request) => {
      await deleteFile(ctx, request.auth.accountId, request.params.id)
      return { success: true as const }
    },
  )
}
