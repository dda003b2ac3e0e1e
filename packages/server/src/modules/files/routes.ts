import { PassThrough, type Readable } from 'node:stream'
import fastifyMultipart from '@fastify/multipart'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../platform/context.ts'
import { sendBlob } from '../../platform/downloads.ts'
import { AppError } from '../../platform/errors.ts'
import { toAppError } from '../../platform/http.ts'
import {
  DirectoryListing,
  DirectoryParams,
  FileAnswer,
  FileParams,
  FileRecord,
  FileView,
  Ok,
  ShareBody,
  ShareParams,
  UploadBody,
} from './schemas.ts'
import {
  commitUpload,
  deleteFile,
  discardBlob,
  getFile,
  listFiles,
  normalizeDirectory,
  originalDownload,
  type StagedBlob,
  sanitizeFileName,
  shareFile,
  stageUpload,
  unshareFile,
} from './service.ts'

// Room for the multipart framing and the small fields around the file: with the part limits
// below, a body longer than the file limit plus this cannot hold an acceptable file.
const MULTIPART_OVERHEAD = 256 * 1024

export async function fileRoutes(fastify: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.addSchema(FileRecord)
  app.addSchema(FileView)
  const tags = ['files']

  app.get(
    '/file/dir/private/',
    {
      schema: {
        tags,
        summary: "List the caller's root directory",
        response: { 200: DirectoryListing },
      },
    },
    async (request) => ({ success: true as const, files: await listFiles(ctx, request.auth.accountId, '/') }),
  )

  app.get(
    '/file/dir/private/*',
    {
      schema: {
        tags,
        summary: 'List a sub-directory of the caller',
        params: DirectoryParams,
        response: { 200: DirectoryListing },
      },
    },
    async (request) => ({
      success: true as const,
      files: await listFiles(ctx, request.auth.accountId, request.params['*']),
    }),
  )

  // Multipart parsing is registered for the upload route only: no other route accepts it.
  await app.register(async (scoped) => {
    await scoped.register(fastifyMultipart, {
      // Keep the client's file name as sent so that "../x" is refused, not silently shortened.
      preservePath: true,
      limits: {
        // One byte over the limit is enough for the measuring stream to answer 413; the parser
        // must not cut the file short at the limit itself (that would look like a whole file).
        fileSize: ctx.config.uploadMaxBytes + 1,
        fields: 10,
        fieldSize: 4096,
        parts: 12,
        headerPairs: 50,
      },
    })
    scoped.withTypeProvider<TypeBoxTypeProvider>().post(
      '/file/upload/',
      {
        schema: {
          tags,
          summary: 'Upload a file (or a new revision of the file at that path)',
          description:
            'multipart/form-data with the file in part `file` and an optional field `parent` (directory, ' +
            'default `/`). The body is streamed to storage. Larger than TESSERA_UPLOAD_MAX_BYTES: 413 ' +
            'PAYLOAD_TOO_LARGE and nothing is kept. File names must not contain `/`, `\\`, control or ' +
            'bidirectional-override characters, must not be `.` or `..` and have at most 255 UTF-8 bytes ' +
            '(400 VALIDATION_FAILED). Uploading to a path the caller already has makes a new revision of ' +
            'that file: same `_id`, new `revisionDate`, `__v` + 1, converted again. Emits file_uploaded.',
          consumes: ['multipart/form-data'],
          body: UploadBody,
          response: { 200: FileAnswer },
        },
        // The body schema documents the form; the handler reads the stream and checks it itself.
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        if (!request.isMultipart()) {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Upload with Content-Type multipart/form-data.')
        }
        const declared = Number(request.headers['content-length'] ?? 0)
        if (declared > ctx.config.uploadMaxBytes + MULTIPART_OVERHEAD) throw tooLarge(ctx)
        const upload = await receiveUpload(ctx, request).catch((error: unknown) => {
          const known = error instanceof Error ? toAppError(error) : null
          if (known?.code === 'PAYLOAD_TOO_LARGE') throw tooLarge(ctx)
          throw error
        })
        reply.header('cache-control', 'no-store')
        return {
          success: true as const,
          file: await commitUpload(ctx, request.auth.accountId, upload),
        }
      },
    )
  })

  app.get(
    '/file/:id',
    {
      schema: {
        tags,
        summary: 'One file record',
        description: 'Owner, editors and viewers; 404 for anyone else.',
        params: FileParams,
        response: { 200: FileAnswer },
      },
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
        summary: 'The original bytes of the current revision',
        description:
          'Owner, editors and viewers. ETag is the sha256 of the content; If-None-Match answers 304. ' +
          'A single `Range: bytes=…` answers 206 with Content-Range (416 RANGE_NOT_SATISFIABLE past the ' +
          'end); If-Range is honoured.',
        params: FileParams,
        response: {
          200: {
            description: 'The file',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          206: {
            description: 'The requested range',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          304: { description: 'Not modified (If-None-Match)', type: 'null' },
        },
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

  app.post(
    '/file/:id/share',
    {
      schema: {
        tags,
        summary: 'Share a file with an account (or change its role)',
        description:
          'Owner only. `role` viewer (read, download) or editor (also attributes, annotations, ' +
          'configurations). Unknown e-mail: 404. The record lists the shares in `roles` as ' +
          '`[{email, role}]`.',
        params: FileParams,
        body: ShareBody,
        response: { 200: FileAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      file: await shareFile(ctx, request.auth.accountId, request.params.id, request.body),
    }),
  )

  app.delete(
    '/file/:id/share/:email',
    {
      schema: {
        tags,
        summary: 'Stop sharing a file with an account',
        description: 'Owner only. 404 when the e-mail is unknown or the file is not shared with it.',
        params: ShareParams,
        response: { 200: FileAnswer },
      },
    },
    async (request) => ({
      success: true as const,
      file: await unshareFile(ctx, request.auth.accountId, request.params.id, request.params.email),
    }),
  )
}

function tooLarge(ctx: AppContext): AppError {
  // Closing the connection stops a client that is still sending from uploading the rest for nothing.
  return new AppError(
    'PAYLOAD_TOO_LARGE',
    `The upload exceeds the limit of ${ctx.config.uploadMaxBytes} bytes.`,
    {
      connection: 'close',
    },
  )
}

/**
 * Reads the multipart body part by part: the `file` part streams into the blob store as it
 * arrives, `parent` may come before or after it. Any failure removes what was stored.
 */
async function receiveUpload(ctx: AppContext, request: FastifyRequest) {
  let parent = '/'
  let name: string | undefined
  let staged: StagedBlob | undefined
  try {
    for await (const part of malformedAsBadRequest(request.parts())) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || staged) {
          throw new AppError('VALIDATION_FAILED', 'Send exactly one file, in the part named "file".')
        }
        name = sanitizeFileName(part.filename)
        staged = await stageFrom(ctx, part.file)
        if (part.file.truncated) throw tooLarge(ctx)
      } else if (part.fieldname === 'parent') {
        if (part.valueTruncated) throw new AppError('VALIDATION_FAILED', 'The field "parent" is too long.')
        parent = normalizeDirectory(String(part.value))
      } else if (part.fieldname === 'file') {
        throw new AppError('VALIDATION_FAILED', 'The part "file" must be a file (with a filename).')
      }
      // Other fields are ignored, as form posts often carry extras.
    }
  } catch (error) {
    if (staged) await discardBlob(ctx, staged.key)
    throw error
  }
  if (!staged || name === undefined) {
    throw new AppError('VALIDATION_FAILED', 'The multipart body has no part "file".')
  }
  return { name, parent, blob: staged }
}

/**
 * Stores one file part. A failure of the client's stream (cut off, malformed) is the client's
 * error (400); a failure of the store itself stays a server error. The relay keeps the two apart:
 * the store's pipeline destroys the relay, never the client's stream, so an error seen on the
 * client's stream is always the client's.
 */
async function stageFrom(ctx: AppContext, file: Readable): Promise<StagedBlob> {
  const relay = new PassThrough()
  // The store attaches its pipeline only after its own set-up (mkdir, multipart start); an error
  // before that must not be an uncaught 'error' event. The pipeline still sees it (`errored`).
  relay.on('error', () => {})
  let clientFailed = false
  const fail = (error: Error) => {
    clientFailed = true
    relay.destroy(error)
  }
  // The parser may have failed the part before we got to read it.
  if (file.errored) fail(file.errored)
  else {
    file.once('error', fail)
    file.pipe(relay)
  }
  try {
    return await stageUpload(ctx, relay)
  } catch (error) {
    if (error instanceof AppError) throw error
    if (clientFailed) throw new AppError('BAD_REQUEST', 'The multipart body ended early or is malformed.')
    throw error
  } finally {
    file.off('error', fail)
  }
}

/** Parser errors of the multipart body are bad requests, not server errors. */
async function* malformedAsBadRequest<T>(parts: AsyncIterableIterator<T>): AsyncGenerator<T> {
  for (;;) {
    let next: IteratorResult<T>
    try {
      next = await parts.next()
    } catch (error) {
      const known = error instanceof Error ? toAppError(error) : null
      throw known ?? new AppError('BAD_REQUEST', 'The multipart body is malformed.')
    }
    if (next.done) return
    yield next.value
  }
}
