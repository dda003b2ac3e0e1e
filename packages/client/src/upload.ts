// Uploads with progress and constant memory. Node: fetch (undici) with a streaming multipart body
// (`duplex: 'half'`). Browsers: a Blob goes through XMLHttpRequest, whose upload progress events
// work over HTTP/1.1 (streaming fetch bodies need HTTP/2 there and report no progress); the body is
// a Blob composed of parts, which the browser reads from disk as it sends. Both go through the
// openapi-fetch client, so the answer is the generated type.

import { TesseraError } from './errors.ts'
import { type ApiClient, retryPolicyOf, unwrap } from './http.ts'
import { multipartBlob, multipartParts, multipartStream, type ProgressCallback } from './multipart.ts'
import {
  IDEMPOTENCY_HEADER,
  newIdempotencyKey,
  pause,
  retryableFailure,
  retryableStatus,
  retryDelay,
} from './retry.ts'
import type { FileView } from './types.ts'

export type UploadSource = Blob | ReadableStream<Uint8Array>

export interface UploadOptions {
  /** The file name; default the File's own name. Required for a stream or a plain Blob. */
  name?: string
  /** Directory to upload into (created implicitly), default `/`. The same path again makes a new revision. */
  parent?: string
  /** The size of a stream source, for `total` in progress reports. */
  size?: number
  onProgress?: ProgressCallback
  signal?: AbortSignal
}

// Looked up on globalThis: the browser entry's types must not need Node's (`@types/node`).
const isNode =
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string'

/**
 * The part of XMLHttpRequest used here, looked up on globalThis: the SDK's sources then also
 * type-check for consumers compiling without the DOM library (Node-only projects).
 */
interface Xhr {
  open(method: string, url: string): void
  setRequestHeader(name: string, value: string): void
  getAllResponseHeaders(): string
  send(body: Blob): void
  abort(): void
  withCredentials: boolean
  readonly status: number
  readonly responseText: string
  upload: { onprogress: ((event: { loaded: number }) => void) | null; onload: (() => void) | null }
  onload: (() => void) | null
  onerror: (() => void) | null
  onabort: (() => void) | null
}
const XHR = (globalThis as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest

/**
 * Uploads with an Idempotency-Key kept across retries: a Blob (or File, or a path's file) can be
 * read again, so a failure on the way or a 429/503 is retried with a fresh body; a stream is read
 * once, so it gets no retry. The server fingerprints the fields and the file's bytes, not the
 * multipart framing, so every attempt's new boundary is the same request to it.
 */
export async function uploadFile(
  api: ApiClient,
  source: UploadSource,
  options: UploadOptions,
): Promise<FileView> {
  const name = options.name ?? (isFile(source) ? source.name : undefined)
  if (!name) throw new TypeError('upload: give options.name (the file name) for a stream or a Blob')
  const key = newIdempotencyKey()
  const policy = retryPolicyOf(api)
  const retries = source instanceof Blob ? policy.retries : 0
  for (let attempt = 0; ; attempt++) {
    try {
      return await uploadOnce(api, source, { ...options, name, key })
    } catch (error) {
      if (attempt >= retries || !retryableUpload(error)) throw error
      const retryAfter = error.retryAfter === undefined ? null : String(error.retryAfter)
      await pause(retryDelay(policy, attempt, retryAfter), options.signal)
    }
  }
}

function retryableUpload(error: unknown): error is TesseraError {
  if (!(error instanceof TesseraError)) return false
  return retryableStatus(error.status) || (error.code === 'NETWORK_ERROR' && retryableFailure(error.cause))
}

async function uploadOnce(
  api: ApiClient,
  source: UploadSource,
  options: UploadOptions & { name: string; key: string },
): Promise<FileView> {
  const { name, key } = options
  const parts = multipartParts(name, options.parent)
  const total = source instanceof Blob ? source.size : options.size
  const useXhr = !isNode && source instanceof Blob && XHR !== undefined
  const body = useXhr ? undefined : multipartStream(parts, toStream(source), total, options.onProgress)
  const call = api.POST('/file/upload/', {
    body: { file: name, ...(options.parent === undefined ? {} : { parent: options.parent }) },
    bodySerializer: () => body,
    headers: { 'content-type': `multipart/form-data; boundary=${parts.boundary}`, [IDEMPOTENCY_HEADER]: key },
    ...(options.signal ? { signal: options.signal } : {}),
    // Node's fetch needs `duplex` for a stream body; it is part of RequestInit there.
    ...(useXhr ? {} : ({ duplex: 'half' } as Record<string, string>)),
    ...(useXhr && source instanceof Blob
      ? { fetch: xhrFetch(multipartBlob(parts, source), parts.head.byteLength, source.size, options) }
      : {}),
  })
  const answer = await unwrap(call, options.signal)
  return answer.file
}

function isFile(source: UploadSource): source is File {
  return typeof File === 'function' && source instanceof File
}

function toStream(source: UploadSource): ReadableStream<Uint8Array> {
  return source instanceof Blob ? (source.stream() as ReadableStream<Uint8Array>) : source
}

/**
 * A fetch for one request that sends `body` with XMLHttpRequest and reports upload progress. It
 * takes the URL, method and headers from the Request openapi-fetch built and ignores its body.
 */
function xhrFetch(
  body: Blob,
  headSize: number,
  fileSize: number,
  { onProgress, signal }: UploadOptions,
): (request: Request) => Promise<Response> {
  return (request) =>
    new Promise<Response>((resolve, reject) => {
      if (!XHR) throw new TypeError('XMLHttpRequest is not available')
      const xhr = new XHR()
      xhr.open(request.method, request.url)
      // Cookie mode (credentials 'include'): the cookies go along, also to another origin.
      xhr.withCredentials = request.credentials === 'include'
      request.headers.forEach((value, key) => {
        xhr.setRequestHeader(key, value)
      })
      xhr.upload.onprogress = (event) => {
        // The event counts multipart framing too; report file bytes only.
        const loaded = Math.max(0, Math.min(fileSize, event.loaded - headSize))
        onProgress?.({ loaded, total: fileSize })
      }
      xhr.upload.onload = () => onProgress?.({ loaded: fileSize, total: fileSize })
      xhr.onload = () => {
        const headers = new Headers()
        for (const line of xhr
          .getAllResponseHeaders()
          .trim()
          .split(/[\r\n]+/)) {
          const colon = line.indexOf(':')
          if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
        }
        resolve(new Response(xhr.responseText, { status: xhr.status, headers }))
      }
      xhr.onerror = () => reject(new TypeError('network error during upload'))
      xhr.onabort = () => reject(new DOMException('upload aborted', 'AbortError'))
      signal?.addEventListener('abort', () => xhr.abort(), { once: true })
      xhr.send(body)
    })
}
