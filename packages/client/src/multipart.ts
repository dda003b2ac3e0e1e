// A multipart/form-data body built as a stream, so an upload of any size takes constant memory:
// the file's bytes are pulled from its source only as fast as the connection takes them, and
// counted on the way for progress. Web streams only: the same code runs in Node and browsers.

export interface UploadProgress {
  /** File bytes handed to the connection so far. */
  loaded: number
  /** The file's size, when known (Blob, File, a path; a stream only when `size` was given). */
  total: number | undefined
}

export type ProgressCallback = (progress: UploadProgress) => void

export interface MultipartParts {
  boundary: string
  /** The bytes before the file's content: the `parent` field and the file part's headers. */
  head: Uint8Array
  /** The bytes after it: the closing boundary. */
  tail: Uint8Array
}

const encoder = new TextEncoder()

export function multipartParts(fileName: string, parent: string | undefined): MultipartParts {
  // A line break would end the field early; the server refuses control characters in names anyway.
  if (parent?.includes('\r') || parent?.includes('\n')) throw new TypeError('upload: parent has a line break')
  const random = crypto.getRandomValues(new Uint8Array(16))
  const boundary = `----tessera${Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('')}`
  let head = ''
  if (parent !== undefined) {
    head += `--${boundary}\r\ncontent-disposition: form-data; name="parent"\r\n\r\n${parent}\r\n`
  }
  head +=
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${quote(fileName)}"\r\n` +
    'content-type: application/octet-stream\r\n\r\n'
  return { boundary, head: encoder.encode(head), tail: encoder.encode(`\r\n--${boundary}--\r\n`) }
}

/** RFC 7578 §4.2 as browsers do it: percent-encode the three characters that would end the value. */
function quote(name: string): string {
  return name.replace(/[\r\n"]/g, (c) => encodeURIComponent(c))
}

/** The whole body as one stream: head, the file's chunks (counted), tail. */
export function multipartStream(
  parts: MultipartParts,
  source: ReadableStream<Uint8Array>,
  total: number | undefined,
  onProgress: ProgressCallback | undefined,
): ReadableStream<Uint8Array> {
  const reader = source.getReader()
  let stage: 'head' | 'body' | 'tail' | 'done' = 'head'
  let loaded = 0
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (stage === 'head') {
          stage = 'body'
          controller.enqueue(parts.head)
          onProgress?.({ loaded, total })
          return
        }
        if (stage === 'body') {
          const { done, value } = await reader.read()
          if (!done) {
            loaded += value.byteLength
            controller.enqueue(value)
            onProgress?.({ loaded, total })
            return
          }
          stage = 'tail'
        }
        if (stage === 'tail') {
          stage = 'done'
          controller.enqueue(parts.tail)
          controller.close()
        }
      },
      async cancel(reason) {
        await reader.cancel(reason)
      },
    },
    // No read-ahead beyond what the connection asks for: memory stays at about one chunk.
    { highWaterMark: 0 },
  )
}

/** The body as a Blob composed of parts: browsers read the file part lazily, from disk. */
export function multipartBlob(parts: MultipartParts, file: Blob): Blob {
  const head = new Uint8Array(parts.head)
  const tail = new Uint8Array(parts.tail)
  return new Blob([head, file, tail])
}
