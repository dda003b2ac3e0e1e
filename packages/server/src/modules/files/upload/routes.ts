// The upload route: multipart/form-data streamed part by part into the blob store, then committed.
import { PassThrough, type Readable } from 'node:stream'
import fastifyMultipart from '@fastify/multipart'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../../../platform/context.ts'
import { AppError } from '../../../platform/errors.ts'
import { toAppError } from '../../../platform/http.ts'
import {
  answerInCommit,
  claimIdempotencyKey,
  idempotencyStore,
  requestFingerprint,
} from '../../../platform/idempotent-routes.ts'
import { normalizeDirectory, sanitizeFileName } from '../names.ts'
import { FileAnswer } from '../schemas.ts'
import { discardBlob, type FileViewShape } from '../service.ts'
import type { UploadFormatPolicy } from './format.ts'
import { UploadBody } from './schemas.ts'
import { commitUpload, type StagedBlob, stageUpload } from './service.ts'
import { readHead, refused, storedReader } from './sniff.ts'

// Room for the multipart framing and the small fields around the file: with the part limits
// below, a body longer than the file limit plus this cannot hold an acceptable file.
const MULTIPART_OVERHEAD = 256 * 1024
const MAX_FIELDS = 10
const MAX_PARTS = 12

// busboy's count limits surface as @fastify/multipart errors with status 413, which would read as
// "the file is too large": they are about the form's shape, so they get a message of their own.
const COUNT_LIMITS: Record<string, string> = {
  FST_FIELDS_LIMIT: `The form has more than ${MAX_FIELDS} fields; send the part "file" and at most "parent".`,
  FST_PARTS_LIMIT: `The form has more than ${MAX_PARTS} parts; send the part "file" and at most "parent".`,
  FST_FILES_LIMIT: 'The form has more than one file; send exactly one, in the part named "file".',
}

export async function uploadRoute(
  fastify: FastifyInstance,
  ctx: AppContext,
  policy: UploadFormatPolicy,
): Promise<void> {
  const tags = ['files']
  const idempotency = idempotencyStore(ctx)
  // Multipart parsing is registered for the upload route only: no other route accepts it.
  await fastify.register(async (scoped) => {
    await scoped.register(fastifyMultipart, {
      // Keep the client's file name as sent so that "../x" is refused, not silently shortened.
      preservePath: true,
      limits: {
        // One byte over the limit is enough for the measuring stream to answer 413; the parser
        // must not cut the file short at the limit itself (that would look like a whole file).
        fileSize: ctx.config.uploadMaxBytes + 1,
        fields: MAX_FIELDS,
        fieldSize: 4096,
        parts: MAX_PARTS,
        headerPairs: 50,
      },
    })
    scoped.withTypeProvider<TypeBoxTypeProvider>().post(
      '/file/upload/',
      {
        config: { idempotent: 'handler' },
        schema: {
          tags,
          operationId: 'uploadFile',
          summary: 'Upload a file (or a new revision of the file at that path)',
          description:
            'multipart/form-data with the file in part `file` and an optional field `parent` (directory, ' +
            'default `/`). The body is streamed to storage. Larger than TESSERA_UPLOAD_MAX_BYTES: 413 ' +
            'PAYLOAD_TOO_LARGE and nothing is kept. File names must not contain `/`, `\\`, control or ' +
            'bidirectional-override characters, must not be `.` or `..` and have at most 255 UTF-8 bytes ' +
            '(400 VALIDATION_FAILED). A file that cannot be converted — by its extension, its first bytes ' +
            '(magic numbers), or for a .zip the names in its directory — is refused with 415 ' +
            'UNSUPPORTED_FORMAT (the detail lists the supported formats) and nothing is kept: no file, ' +
            'no blob, no event; a revision keeps the current one. Uploading to a path the caller already ' +
            'has makes a new revision of that file: same `_id`, new `revisionDate`, `__v` + 1, converted ' +
            'again; the replaced revision stays in the file’s history (GET /file/{id}/revisions). ' +
            'Emits file_uploaded.',
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
        const upload = await receiveUpload(ctx, request, policy).catch((error: unknown) => {
          const known = error instanceof Error ? toAppError(error) : null
          if (known?.code === 'PAYLOAD_TOO_LARGE') throw tooLarge(ctx)
          throw error
        })
        reply.header('cache-control', 'no-store')
        // The key is taken once the body has been read and measured: the fingerprint covers the
        // file's bytes (their SHA-256, computed as they streamed) and the fields.
        const { name, parent, blob } = upload
        const content = JSON.stringify({ name, parent, size: blob.size, sha256: blob.sha256 })
        const fingerprint = requestFingerprint('POST', request.url, content)
        const goOn = await claimIdempotencyKey(idempotency, request, reply, fingerprint).catch(
          async (error: unknown) => {
            await discardBlob(ctx, blob.key)
            throw error
          },
        )
        if (!goOn) {
          await discardBlob(ctx, blob.key)
          return reply
        }
        // The answer is stored with the key in the upload's own transaction: a crash after the
        // commit cannot leave a file whose key would run the upload again.
        const answer = (file: FileViewShape) => ({ success: true as const, file })
        const inCommit = answerInCommit(request, reply, answer)
        return answer(await commitUpload(ctx, request.auth.accountId, upload, inCommit))
      },
    )
  })
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
async function receiveUpload(ctx: AppContext, request: FastifyRequest, policy: UploadFormatPolicy) {
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
        // Sniffed before the store is touched: a refused format leaves nothing behind.
        const head = await readHead(part.file, policy.headBytes)
        const headRefusal = policy.checkHead(name, head.bytes)
        if (headRefusal) throw refused(headRefusal, policy)
        staged = await stageFrom(ctx, part.file, head)
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
  // Archives are judged by their directory, at their end: stored, read back, removed if refused.
  const storedRefusal = await policy
    .checkStored(name, staged.size, storedReader(ctx, staged.key))
    .catch(async (error: unknown) => {
      await discardBlob(ctx, (staged as StagedBlob).key)
      throw error
    })
  if (storedRefusal) {
    await discardBlob(ctx, staged.key)
    throw refused(storedRefusal, policy)
  }
  return { name, parent, blob: staged }
}

/**
 * Stores one file part. A failure of the client's stream (cut off, malformed) is the client's
 * error (400); a failure of the store itself stays a server error. The relay keeps the two apart:
 * the store's pipeline destroys the relay, never the client's stream, so an error seen on the
 * client's stream is always the client's.
 */
async function stageFrom(
  ctx: AppContext,
  file: Readable,
  head: { bytes: Buffer; ended: boolean },
): Promise<StagedBlob> {
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
    // The sniffed head first; then the rest of the part, unless it ended within the head.
    relay.write(head.bytes)
    if (head.ended) relay.end()
    else file.pipe(relay)
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
      const limit = COUNT_LIMITS[(error as { code?: string } | null)?.code ?? '']
      if (limit) throw new AppError('VALIDATION_FAILED', limit)
      const known = error instanceof Error ? toAppError(error) : null
      throw known ?? new AppError('BAD_REQUEST', 'The multipart body is malformed.')
    }
    if (next.done) return
    yield next.value
  }
}
