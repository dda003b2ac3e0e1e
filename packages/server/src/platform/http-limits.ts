// Time and connection bounds against slow or hoarding clients: headers must arrive within a
// bound, idle keep-alive connections close, open connections are capped, a JSON body has a short
// fixed total time and an upload a minimum transfer rate (a fixed total would cut off big uploads
// on slow links, and a rate catches a trickle at once, however big the declared size).
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import type { Config } from './config.ts'

type HttpLimits = Pick<
  Config,
  | 'httpHeadersTimeoutMs'
  | 'httpKeepAliveTimeoutMs'
  | 'httpMaxConnections'
  | 'jsonBodyTimeoutMs'
  | 'uploadMinBytesPerSecond'
  | 'uploadRateWindowMs'
>

/** Fastify/Node server options for the bounds that Node enforces itself. */
export function httpServerOptions(limits: HttpLimits): Pick<
  FastifyServerOptions,
  'keepAliveTimeout' | 'requestTimeout'
> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number }
} {
  return {
    keepAliveTimeout: limits.httpKeepAliveTimeoutMs,
    // Node's whole-request timeout would cut off big uploads: bodies are bounded below instead.
    requestTimeout: 0,
    http: {
      headersTimeout: limits.httpHeadersTimeoutMs,
      requestTimeout: 0,
      // Node checks the headers timeout this often (default 30 s): the bound holds within 1 s.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.httpHeadersTimeoutMs / 2))),
    },
  }
}

// Written straight to the socket (the request never reached a handler), still a problem document.
const REQUEST_TIMEOUT_BODY = JSON.stringify({
  // code: REQUEST_TIMEOUT in errors.ts
  success: false,
  status: 408,
  title: 'Request Timeout',
  detail: 'The request was not sent in time (headers, body, or an upload below the minimum rate).',
  code: 'REQUEST_TIMEOUT',
})
const REQUEST_TIMEOUT_RESPONSE = Buffer.from(
  'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/problem+json\r\n' +
    `Content-Length: ${Buffer.byteLength(REQUEST_TIMEOUT_BODY)}\r\n\r\n${REQUEST_TIMEOUT_BODY}`,
  'utf8',
)

/**
 * The connection cap, and the body deadlines: an onRequest hook starts a timer for any request
 * whose body has not fully arrived yet. It never reads the body (that stays with the parsers); it
 * looks at how many bytes the socket has read.
 */
export function installHttpLimits(app: FastifyInstance, limits: HttpLimits): void {
  app.server.maxConnections = limits.httpMaxConnections
  dropIdleConnectionsOnClose(app)
  // Before Fastify's own listener: the router answers some requests (a bad URL, an over-long path
  // parameter) within it, before any hook could run.
  app.server.prependListener('request', closeIfAnsweredUnread)
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw
    // Injected requests (tests, light-my-request) have no real socket to watch or close.
    if (!raw.complete && raw.socket instanceof Socket && declaresBody(raw)) {
      const onTimeout = () => {
        if (raw.socket.destroyed) return
        request.log.warn({ bytesRead: raw.socket.bytesRead }, 'request body too slow: connection closed')
        cutOff(raw.socket, reply.raw.headersSent)
      }
      if (isUpload(raw)) watchRate(raw, limits, onTimeout)
      else setTimeout(() => raw.complete || onTimeout(), limits.jsonBodyTimeoutMs).unref()
    }
    done()
  })
}

/**
 * On close, every connection with no request in progress is dropped at once. Node's own
 * closeIdleConnections() leaves out a connection that has sent nothing yet or only part of its
 * headers, and once the server closes nothing times those out: one silent client held the
 * graceful close for as long as it kept its socket open. Requests being handled still finish.
 */
function dropIdleConnectionsOnClose(app: FastifyInstance): void {
  const inProgress = new Map<Socket, number>()
  let closing = false
  app.server.on('connection', (socket: Socket) => {
    // Accepted between the close hooks and the listener's close: nothing was asked yet.
    if (closing) return void socket.destroy()
    inProgress.set(socket, 0)
    socket.once('close', () => inProgress.delete(socket))
  })
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1)
    response.once('close', () => {
      const count = inProgress.get(socket)
      if (count !== undefined) inProgress.set(socket, count - 1)
    })
  })
  // An upgraded connection (a live session's WebSocket) is no HTTP connection any more: its owner
  // closes it, with its own last words (modules/live).
  app.server.on('upgrade', (request: IncomingMessage) => inProgress.delete(request.socket))
  app.addHook('preClose', (done) => {
    closing = true
    for (const [socket, count] of inProgress) if (count === 0) socket.destroy()
    done()
  })
}

/**
 * An answer sent before the request's body was read closes the connection (Node writes
 * `Connection: close` and ends the socket once the answer is flushed). Otherwise Node keeps the
 * connection for a next request and reads the rest of the body first, at whatever pace the client
 * sends it: the router answers a bad URL before any hook starts the body deadline, so a client
 * trickling a declared body after such a 400 held its connection for as long as it liked. Node
 * offers no moment between an answer's start and its head being written, so keep-alive is withdrawn
 * up front and given back once the body has been read to its end (by a parser or a handler).
 */
function closeIfAnsweredUnread(request: IncomingMessage, response: ServerResponse): void {
  if (!declaresBody(request) || !response.shouldKeepAlive) return
  response.shouldKeepAlive = false
  request.once('end', () => {
    if (!response.headersSent) response.shouldKeepAlive = true
  })
  response.once('finish', () => lingerUnread(request))
}

/** While lingering, each window must bring this many more bytes… */
const LINGER_WINDOW_MS = 250
const LINGER_MIN_BYTES = 64 * 1024
/** …and lingering ends after this long in any case (nginx's lingering_time). */
const LINGER_MAX_MS = 30_000

/**
 * Lingering close. Closing a socket while the client is still sending its body makes the kernel
 * answer its next bytes with a reset, and most clients then report a broken pipe without reading
 * the answer already sent (a 413 for a body past its limit, a 401 before the body was needed). So
 * once such an answer is written, the rest of the body is read and dropped, and the socket closes
 * when the body is in, when a window of LINGER_WINDOW_MS brings less than LINGER_MIN_BYTES (a
 * trickle is not waited for), or after LINGER_MAX_MS.
 */
function lingerUnread(request: IncomingMessage): void {
  const socket = request.socket
  if (request.complete || socket.destroyed || !(socket instanceof Socket)) return
  // Node's own 'finish' listener, which ran first, called socket.destroySoon(): the socket would be
  // destroyed as soon as the answer is flushed. It closes here instead.
  socket.removeListener('finish', socket.destroy)
  request.removeAllListeners('data')
  request.resume()
  let lastBytes = socket.bytesRead
  const close = () => {
    clearInterval(window)
    clearTimeout(deadline)
    socket.destroy()
  }
  const window = setInterval(() => {
    if (socket.bytesRead - lastBytes < LINGER_MIN_BYTES) close()
    lastBytes = socket.bytesRead
  }, LINGER_WINDOW_MS)
  const deadline = setTimeout(close, LINGER_MAX_MS)
  window.unref()
  deadline.unref()
  request.once('end', close)
  socket.once('close', close)
}

function declaresBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length']
  return (length !== undefined && length !== '0') || raw.headers['transfer-encoding'] !== undefined
}

function isUpload(raw: IncomingMessage): boolean {
  return /^\s*multipart\//i.test(raw.headers['content-type'] ?? '')
}

/** Every window, the socket must have read at least rate × window more bytes, until the body is in. */
function watchRate(raw: IncomingMessage, limits: HttpLimits, onTooSlow: () => void): void {
  const socket = raw.socket
  const minBytes = Math.ceil((limits.uploadMinBytesPerSecond * limits.uploadRateWindowMs) / 1000)
  let lastBytes = socket.bytesRead
  const timer = setInterval(() => {
    if (raw.complete || socket.destroyed) return clearInterval(timer)
    const bytes = socket.bytesRead
    if (bytes - lastBytes < minBytes) {
      clearInterval(timer)
      onTooSlow()
    }
    lastBytes = bytes
  }, limits.uploadRateWindowMs)
  timer.unref()
}

/** Answers 408 when no answer has started yet, then closes the connection either way. */
function cutOff(socket: Socket, answered: boolean): void {
  // Parsers waiting for the rest of the body fail with an aborted stream; uploads clean up.
  if (answered || socket.writableEnded) return void socket.destroy()
  socket.end(REQUEST_TIMEOUT_RESPONSE, () => socket.destroy())
  setTimeout(() => socket.destroy(), 1000).unref()
}
