// GET /file/:id/thumbnail: the PNG a conversion made of the current revision (see
// docs/conversion.md, "Thumbnails"), for anyone who may read the file, once it is ready.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { blobResponses, etagMatches } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import { requireFileAccess } from './access.ts'
import { FileParams } from './schemas.ts'

/**
 * Browsers may reuse a thumbnail this long without asking; after that the ETag makes asking cheap
 * (304). A new revision keeps the URL, so it shows at most this late.
 */
const THUMBNAIL_MAX_AGE_S = 60

export function thumbnailRoute(fastify: FastifyInstance, ctx: AppContext): void {
  fastify.withTypeProvider<TypeBoxTypeProvider>().get(
    '/file/:id/thumbnail',
    {
      config: { link: 'read' },
      schema: {
        tags: ['files'],
        operationId: 'getFileThumbnail',
        summary: 'A PNG thumbnail of the current revision',
        description:
          'Owner, editors, viewers and the file’s link sessions, once the file is `ready` (409 NOT_READY while queued or ' +
          'converting, and after a failed conversion); 404 for anyone else. 256×256 PNG with a ' +
          'transparent background: a three-quarter view of the optimized model, flat-shaded. ETag is ' +
          `the PNG's sha256; If-None-Match answers 304. Cache-Control: private, max-age=${THUMBNAIL_MAX_AGE_S}.`,
        params: FileParams,
        response: blobResponses('The thumbnail', 'image/png', { ranges: false }),
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const { file } = await requireFileAccess(ctx.db.kysely, request.auth.accountId, id, 'read')
      if (file.state !== 'ready' || !file.thumbnail_key) {
        const why =
          file.state === 'error'
            ? `its conversion failed: ${file.error}`
            : file.state === 'ready'
              ? 'it was converted before thumbnails existed; upload it again'
              : `it is ${file.state}`
        throw new AppError('NOT_READY', `File ${id} has no thumbnail: ${why}.`)
      }
      return sendThumbnail(request, reply, ctx, {
        key: file.thumbnail_key,
        size: file.thumbnail_size,
        sha256: file.thumbnail_sha256,
      })
    },
  )
}

async function sendThumbnail(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: AppContext,
  thumbnail: { key: string; size: number; sha256: string },
): Promise<FastifyReply> {
  const etag = `"${thumbnail.sha256}"`
  reply.header('etag', etag)
  reply.header('cache-control', `private, max-age=${THUMBNAIL_MAX_AGE_S}`)
  reply.header('x-content-type-options', 'nosniff')
  const ifNoneMatch = request.headers['if-none-match']
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) return reply.status(304).send()
  reply.header('content-type', 'image/png')
  reply.header('content-length', thumbnail.size)
  return reply.send(await ctx.blobs.get(thumbnail.key))
}
