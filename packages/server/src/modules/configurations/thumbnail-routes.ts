// PUT and GET /file/configuration/{id}/thumbnail: a saved view's thumbnail (thumbnails.ts). The PUT's
// body is the image itself (image/png or image/webp), read whole up to 64 KiB (more: 413 before any
// of it is stored); its content is checked by its magic bytes and declared size (thumbnail-image.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../../platform/context.ts'
import { etagMatches } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import { ID_PATTERN } from '../../platform/ids.ts'
import { THUMBNAIL_MAX_BYTES, THUMBNAIL_MAX_SIDE } from './thumbnail-image.ts'
import { listThumbnails, readThumbnail, writeThumbnail } from './thumbnails.ts'

const Params = Type.Object({ id: Type.String({ pattern: ID_PATTERN }) })

const TYPES: string[] = ['image/png', 'image/webp']

const binary = {
  content: Object.fromEntries(TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
}

const ID = new RegExp(ID_PATTERN)

/**
 * The PUT's schemas describe it in OpenAPI but validate nothing: its body is a Buffer (never a JSON
 * string), checked by its bytes; its id is checked here (not one: 404, as for an unknown id).
 */
const describedOnly = () => () => true

const thumbnailFields = {
  contentType: Type.Union([Type.Literal('image/png'), Type.Literal('image/webp')]),
  width: Type.Integer({ minimum: 1, maximum: THUMBNAIL_MAX_SIDE }),
  height: Type.Integer({ minimum: 1, maximum: THUMBNAIL_MAX_SIDE }),
  size: Type.Integer({ minimum: 1, maximum: THUMBNAIL_MAX_BYTES }),
  sha256: Type.String({ examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'] }),
}

const Stored = Type.Object({ success: Type.Literal(true), thumbnail: Type.Object(thumbnailFields) })

const Listed = Type.Object({
  success: Type.Literal(true),
  thumbnails: Type.Array(Type.Object({ configuration: Type.String(), ...thumbnailFields })),
})

const FileQuery = Type.Object({ file: Type.String({ maxLength: 64 }) })

const ACCESS =
  'Reading takes what reading the configuration takes (the file’s owner, editors, viewers and its ' +
  'link sessions, and the configuration’s readPermissions; else 404); writing what changing it takes ' +
  '(owner or editor: a viewer 403, a link session 403 LINK_READ_ONLY; its writePermissions, else 403; ' +
  'locked by another account: 409 CONFIGURATION_LOCKED). The configuration record does not change ' +
  '(no `__v`, no event); the thumbnail is deleted with the configuration and with its file.'

const PUT_DESCRIPTION =
  'The body is the image, sent as image/png or image/webp; it replaces the thumbnail before. ' +
  `More than ${THUMBNAIL_MAX_BYTES} bytes: 413 PAYLOAD_TOO_LARGE. Any other Content-Type, ` +
  'bytes that are not a PNG or WebP of the type sent (magic bytes and header), or a header ' +
  `declaring more than ${THUMBNAIL_MAX_SIDE}×${THUMBNAIL_MAX_SIDE}: 415 ` +
  'UNSUPPORTED_MEDIA_TYPE. The image is never decoded on the server. Its bytes count toward ' +
  'the file owner’s TESSERA_ACCOUNT_QUOTA_BYTES, whoever stores it (a replacement counts ' +
  'the difference): growing past it is 413 QUOTA_EXCEEDED and nothing is stored. Answers ' +
  `what was stored (its sha256 is the GET's ETag). ${ACCESS}`

export async function thumbnailRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  // A scope of its own: the image parsers serve these routes only.
  await fastify.register(async (scope) => {
    scope.addContentTypeParser(
      TYPES,
      { parseAs: 'buffer', bodyLimit: THUMBNAIL_MAX_BYTES },
      (_r, body, done) => done(null, body),
    )
    const app = scope.withTypeProvider<TypeBoxTypeProvider>()
    app.put(
      '/file/configuration/:id/thumbnail',
      {
        validatorCompiler: describedOnly,
        schema: {
          tags: ['configurations'],
          operationId: 'setConfigurationThumbnail',
          summary: 'Store the thumbnail of a saved view (PNG or WebP, at most 64 KiB and 1024×1024)',
          description: PUT_DESCRIPTION,
          params: Params,
          body: binary,
          response: { 200: Stored },
        },
      },
      async (request) => {
        const contentType =
          String(request.headers['content-type'] ?? '')
            .split(';')[0]
            ?.trim() ?? ''
        if (!Buffer.isBuffer(request.body) || !TYPES.includes(contentType)) {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the thumbnail as image/png or image/webp.')
        }
        if (!ID.test(request.params.id)) throw new AppError('NOT_FOUND', 'No such configuration.')
        const body = { bytes: request.body, contentType }
        const stored = await writeThumbnail(ctx, request.auth, request.params.id, body)
        return { success: true as const, thumbnail: stored }
      },
    )
    app.get(
      '/file/configuration/thumbnails/',
      {
        config: { link: 'read' },
        schema: {
          tags: ['configurations'],
          operationId: 'listConfigurationThumbnails',
          summary: 'Which saved views of a file have a thumbnail',
          description:
            'One entry per configuration of the file that the caller may see and that has a ' +
            'thumbnail, in configuration id order: its id (`configuration`), type, declared size, bytes ' +
            'and sha256 (the ETag of its GET: a changed sha256 is a new picture). A client fetches ' +
            `only these. Reading the file is enough (a link session too). ${ACCESS}`,
          querystring: FileQuery,
          response: { 200: Listed },
        },
      },
      async (request) => ({
        success: true as const,
        thumbnails: await listThumbnails(ctx, request.auth, request.query.file),
      }),
    )
    app.get(
      '/file/configuration/:id/thumbnail',
      {
        config: { link: 'read' },
        schema: {
          tags: ['configurations'],
          operationId: 'getConfigurationThumbnail',
          summary: 'The thumbnail of a saved view',
          description:
            'The image as stored, with its Content-Type (image/png or image/webp); 404 when the ' +
            'configuration has none. ETag is its sha256 (If-None-Match answers 304); ' +
            `Cache-Control: private, no-cache (a new thumbnail keeps the URL). ${ACCESS}`,
          params: Params,
          response: {
            200: { description: 'The thumbnail', ...binary },
            304: { description: 'Not modified (If-None-Match)', type: 'null' },
          },
        },
      },
      async (request, reply) => {
        const stored = await readThumbnail(ctx, request.auth, request.params.id)
        const etag = `"${stored.sha256}"`
        reply.header('etag', etag)
        reply.header('cache-control', 'private, no-cache')
        reply.header('x-content-type-options', 'nosniff')
        const ifNoneMatch = request.headers['if-none-match']
        if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) return reply.status(304).send(null)
        reply.header('content-type', stored.contentType)
        return reply.send(stored.bytes)
      },
    )
  })
}
