// A Server-Sent Events client for tests: real HTTP (undici), the body read as it arrives and parsed
// into frames, plus a raw-socket client that can stop reading (a stalled reader).
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { request } from 'undici'
import { sleep } from './receiver.ts'

export interface SseFrame {
  id?: string
  event?: string
  data?: string
  /** Comment lines (`: …`), without the colon and space. */
  comments: string[]
  /** When the frame was parsed (performance.now()). */
  at: number
}

/** Parses SSE text as it arrives (frames end with a blank line). */
export class SseParser {
  #pending = ''
  readonly frames: SseFrame[] = []

  push(text: string): void {
    this.#pending += text
    for (let end = this.#pending.indexOf('\n\n'); end >= 0; end = this.#pending.indexOf('\n\n')) {
      const block = this.#pending.slice(0, end)
      this.#pending = this.#pending.slice(end + 2)
      this.frames.push(parseBlock(block))
    }
  }

  /** Frames that carry an event (not only comments). */
  events(): SseFrame[] {
    return this.frames.filter((f) => f.event !== undefined || f.data !== undefined)
  }

  comments(): string[] {
    return this.frames.flatMap((f) => f.comments)
  }
}

function parseBlock(block: string): SseFrame {
  const frame: SseFrame = { comments: [], at: performance.now() }
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comments.push(line.slice(1).trimStart())
    else {
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'id') frame.id = value
      else if (field === 'event') frame.event = value
      else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`
    }
  }
  return frame
}

export interface SseStream {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The body when the answer is not a stream (a problem document). */
  text: string
  parser: SseParser
  ended: boolean
  /** Waits until `count` event frames (matching `filter`) arrived; answers them. */
  waitFor(count: number, filter?: (f: SseFrame) => boolean, ms?: number): Promise<SseFrame[]>
  close(): void
}

/** Opens `base + path` with `headers`; a 200 is read incrementally until closed. */
export async function openStream(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<SseStream> {
  const controller = new AbortController()
  const res = await request(`${base}${path}`, { headers, signal: controller.signal })
  const parser = new SseParser()
  const stream: SseStream = {
    status: res.statusCode,
    headers: res.headers,
    text: '',
    parser,
    ended: false,
    async waitFor(count, filter = () => true, ms = 10_000) {
      const deadline = Date.now() + ms
      for (;;) {
        const got = parser.events().filter(filter)
        if (got.length >= count) return got
        if (Date.now() > deadline || stream.ended) {
          throw new Error(
            `waited for ${count} events, got ${got.length}: ${JSON.stringify(parser.frames.slice(-3))}`,
          )
        }
        await sleep(5)
      }
    },
    close: () => controller.abort(),
  }
  if (res.statusCode !== 200) {
    stream.text = await res.body.text()
    stream.ended = true
    return stream
  }
  res.body.setEncoding('utf8')
  res.body.on('data', (chunk: string) => parser.push(chunk))
  res.body.on('end', () => {
    stream.ended = true
  })
  res.body.on('error', () => {
    stream.ended = true
  })
  return stream
}

/**
 * A stream on a raw socket that can stop reading: the kernel buffers fill, then the server's.
 * `base` is an http:// URL or a Unix socket path (small kernel buffers: a stall shows after a few
 * hundred kB, where loopback TCP here buffers up to ~36 MB first).
 */
export async function rawStream(base: string, path: string, authToken: string) {
  const url = base.startsWith('/') ? null : new URL(base)
  const socket: Socket = url ? connect(Number(url.port), url.hostname) : connect(base)
  await once(socket, 'connect')
  let received = ''
  let closed = false
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    received += chunk
  })
  socket.on('close', () => {
    closed = true
  })
  socket.write(
    `GET ${path} HTTP/1.1\r\nhost: ${url?.host ?? 'localhost'}\r\nauthorization: Bearer ${authToken}\r\n\r\n`,
  )
  return {
    socket,
    received: () => received,
    closed: () => closed,
    async readUntilClosed(ms = 20_000) {
      socket.resume()
      const deadline = Date.now() + ms
      while (!closed && Date.now() < deadline) await sleep(10)
      return received
    },
  }
}
