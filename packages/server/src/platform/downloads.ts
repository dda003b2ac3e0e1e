// Serving stored blobs over HTTP: strong ETags (the content's sha256), conditional GETs
// (If-None-Match → 304, If-Range) and single byte ranges (206, or 416 when unsatisfiable).
// Multi-range requests are answered with the whole body, which RFC 9110 allows.
import { Transform, type TransformCallback } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { BlobRange, BlobStore } from './blobs/index.ts'
import { AppError } from './errors.ts'

export interface BlobDownload {
  key: string
  size: number
  /** Hex sha256 of the content: the strong ETag. */
  sha256: string
  contentType: string
  /** Offered to the client as the attachment's file name. */
  fileName: string
}

/** `"abc"`, `W/"abc"`, `*`, comma-separated: does the list name this ETag (weak comparison)? */
export function etagMatches(header: string, etag: string): boolean {
  return header.split(',').some((candidate) => {
    const value = candidate.trim()
    return value === '*' || value.replace(/^W\//, '') === etag
  })
}

/**
 * The one range of a `Range: bytes=…` header, or null to serve the whole body (no header, another
 * unit, several ranges, or syntax we do not understand). Throws 416 when the range lies beyond
 * the end.
 */
function parseRange(header: string | undefined, size: number): BlobRange | null {
  if (!header) return null
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) return null
  const [, first = '', last = ''] = match
  if (first === '' && last === '') return null
  let start: number
  let end: number
  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last)
    if (length === 0 || size === 0) throw unsatisfiable(size)
    start = Math.max(0, size - length)
    end = size - 1
  } else {
    start = Number(first)
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1)
    if (last !== '' && Number(last) < start) return null
    if (start >= size) throw unsatisfiable(size)
  }
  return { start, end }
}

function unsatisfiable(size: number): AppError {
  return new AppError('RANGE_NOT_SATISFIABLE', `The file has ${size} bytes.`, {
    'content-range': `bytes */${size}`,
  })
}

/** `attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266 / 8187). */
function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )}`
}

export async function sendBlob(
  request: FastifyRequest,
  reply: FastifyReply,
  blobs: BlobStore,
  download: BlobDownload,
): Promise<FastifyReply> {
  const etag = `"${download.sha256}"`
  reply.header('etag', etag)
  reply.header('accept-ranges', 'bytes')
  // Every revision is a new blob with a new ETag: caches may keep it but must revalidate.
  reply.header('cache-control', 'private, no-cache')
  reply.header('x-content-type-options', 'nosniff')
  const ifNoneMatch = request.headers['if-none-match']
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) return reply.status(304).send()

  // If-Range names the version the client holds a part of; another version gets the whole body.
  const ifRange = request.headers['if-range']
  const rangeHeader =
    ifRange === undefined || String(ifRange).trim() === etag ? request.headers.range : undefined
  const range = parseRange(rangeHeader, download.size)
  reply.header('content-type', download.contentType)
  reply.header('content-disposition', contentDisposition(download.fileName))
  if (range) {
    reply.status(206)
    reply.header('content-range', `bytes ${range.start}-${range.end}/${download.size}`)
    reply.header('content-length', range.end - range.start + 1)
    // Some stores answer a one-byte range with more (s3rver sends the whole object for 0-0); the
    // body must match Content-Range exactly.
    const length = range.end - range.start + 1
    return reply.send((await blobs.get(download.key, range)).pipe(new ByteLimit(length)))
  }
  reply.header('content-length', download.size)
  // An empty range read is not possible; an empty file is simply an empty body.
  if (download.size === 0) return reply.send('')
  return reply.send(await blobs.get(download.key))
}

/** Passes the first `limit` bytes and drops the rest. */
class ByteLimit extends Transform {
  #left: number
  constructor(limit: number) {
    super()
    this.#left = limit
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.#left <= 0) {
      done()
      return
    }
    const part = chunk.length > this.#left ? chunk.subarray(0, this.#left) : chunk
    this.#left -= part.length
    done(null, part)
  }
}

/**
 * The OpenAPI responses of a blob download route: 200 with the bytes, 206 for a Range (when the
 * route honours one), 304 for a matching If-None-Match.
 */
export function blobResponses(what: string, mediaType: string, options: { ranges: boolean }) {
  const content = { [mediaType]: { schema: { type: 'string', format: 'binary' } } }
  return {
    200: { description: what, content },
    ...(options.ranges ? { 206: { description: 'The requested range', content } } : {}),
    304: { description: 'Not modified (If-None-Match)', type: 'null' },
  }
}
