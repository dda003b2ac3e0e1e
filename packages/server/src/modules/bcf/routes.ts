// GET and POST /file/:id/bcf: the file's annotations and saved views out as a BCF 3.0 .bcfzip
// (export.ts), and a BCF 2.1 or 3.0 file in (import.ts). The POST's body is the zip itself, read
// whole up to BCF_MAX_BYTES (more: 413 before any of it is used).
import { createHash } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { etagMatches } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import {
  answerInCommit,
  claimIdempotencyKey,
  idempotencyStore,
  requestFingerprint,
} from '../../platform/idempotent-routes.ts'
import { exportBcf } from './export.ts'
import { BCF_MAX_BYTES } from './limits.ts'
import { BCF_TYPES, BcfParams, ImportAnswer, zipContent } from './schemas.ts'
import { type ImportReport, importBcf } from './service.ts'

const EXPORT_DESCRIPTION =
  'The file’s annotations and saved views as BCF 3.0 topics, as the caller sees them (docs/api.md, ' +
  '"BCF"): an annotation is a topic of type Issue (title, description, labels from its tags, its ' +
  'discussion as comments, and a viewpoint from its camera with its node selected); a saved view a ' +
  'topic of type View with one viewpoint (camera, selected and hidden components, section planes and ' +
  'box, its thumbnail as a PNG snapshot). Components are named by IFC GlobalId where the model has ' +
  'one. Owner, editors, viewers and link sessions; 404 for anyone else. ETag is the zip’s SHA-256 ' +
  '(If-None-Match answers 304).'

const IMPORT_DESCRIPTION =
  `The body is a BCF 2.1 or 3.0 .bcfzip (Content-Type application/zip or application/octet-stream), at most ${BCF_MAX_BYTES} bytes (more: 413 PAYLOAD_TOO_LARGE). ` +
  'Topics become annotations with their comments as replies, and saved views for viewpoints that show ' +
  'more than a camera (hidden or isolated components, section planes, a snapshot); a topic of type View ' +
  'becomes a saved view. Components are found by IFC GlobalId; those the model does not have are listed ' +
  'in `unknownComponents`. A topic the file already holds (same GUID) only gets its new comments. The ' +
  'records are the caller’s and keep the BCF’s dates; everything is stored in one transaction with its ' +
  'events, or nothing. A file that is not a readable BCF, or past a bound (entries, sizes, XML depth; a ' +
  'DOCTYPE is refused): 400 BCF_INVALID. Needs the owner or editor role (viewer 403, link session 403 ' +
  'LINK_READ_ONLY, no access 404).'

function attachment(name: string): string {
  const file = `${name.replace(/\.[^.]*$/, '') || 'model'}.bcfzip`
  const ascii = file.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file)}`
}

export async function bcfRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const idempotency = idempotencyStore(ctx)
  await fastify.register(async (scope) => {
    scope.addContentTypeParser(BCF_TYPES, { parseAs: 'buffer', bodyLimit: BCF_MAX_BYTES }, (_r, body, done) =>
      done(null, body),
    )
    const app = scope.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/file/:id/bcf',
      {
        config: { link: 'read' },
        schema: {
          tags: ['bcf'],
          operationId: 'exportBcf',
          summary: 'Export the annotations and saved views of a file as BCF 3.0',
          description: EXPORT_DESCRIPTION,
          params: BcfParams,
          response: {
            200: {
              description: 'The .bcfzip',
              content: { 'application/zip': zipContent.content['application/zip'] },
            },
            304: { description: 'Not modified (If-None-Match)', type: 'null' },
          },
        },
      },
      async (request, reply) => {
        const { bytes, name } = await exportBcf(ctx, request.auth, request.params.id)
        const etag = `"${createHash('sha256').update(bytes).digest('hex')}"`
        reply.header('etag', etag).header('cache-control', 'private, no-cache')
        const ifNoneMatch = request.headers['if-none-match']
        if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) return reply.status(304).send(null)
        reply.header('content-type', 'application/zip').header('content-disposition', attachment(name))
        return reply.send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
      },
    )
    app.post(
      '/file/:id/bcf',
      {
        config: { idempotent: 'handler' },
        // The body is a Buffer checked by its bytes; the schema only describes it.
        validatorCompiler: () => () => true,
        schema: {
          tags: ['bcf'],
          operationId: 'importBcf',
          summary: 'Import a BCF 2.1 or 3.0 file into annotations and saved views',
          description: IMPORT_DESCRIPTION,
          params: BcfParams,
          body: zipContent,
          response: { 200: ImportAnswer },
        },
      },
      async (request, reply) => {
        if (!Buffer.isBuffer(request.body)) {
          throw new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            'Send the .bcfzip as application/zip or application/octet-stream.',
          )
        }
        const body = request.body
        const digest = createHash('sha256').update(body).digest('hex')
        const fingerprint = requestFingerprint('POST', request.url, digest)
        if (!(await claimIdempotencyKey(idempotency, request, reply, fingerprint))) return reply
        const answer = (report: ImportReport) => ({ success: true as const, ...report })
        const inCommit = answerInCommit(request, reply, answer)
        return answer(await importBcf(ctx, request.auth, request.params.id, body, inCommit))
      },
    )
  })
}
