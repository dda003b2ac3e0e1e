// The live event stream over HTTP: what the request asks for, and the response as the hub's sink.
import type { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { EVENT_NAMES, isEventName } from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import type { StreamHub, StreamSink } from '../../stream/index.ts'
import { requestSessionId } from '../sessions/index.ts'

/** How long a stream that was told to go may take to read its last bytes before its socket is dropped. */
const END_GRACE_MS = 5000
const EVENT_ID = /^[0-9a-f]{24}$/

/** `?events=a,b` as a set; null when absent. */
function eventsFilter(raw: string | undefined): ReadonlySet<string> | null {
  if (raw === undefined) return null
  const names = raw.split(',').map((name) => name.trim())
  const unknown = [...new Set(names.filter((name) => !isEventName(name)))]
  if (unknown.length > 0) {
    const shown = unknown.map((name) => JSON.stringify(name.slice(0, 40))).join(', ')
    throw new AppError(
      'VALIDATION_FAILED',
      `Unknown event name(s) in events: ${shown}. Allowed: ${EVENT_NAMES.join(', ')}.`,
    )
  }
  return new Set(names)
}

/** Last-Event-ID from the header, or `?lastEventId=`; null when neither. */
function lastEventId(header: string | undefined, query: string | undefined): string | null {
  if (header !== undefined && query !== undefined && header !== query) {
    throw new AppError('VALIDATION_FAILED', 'Last-Event-ID and lastEventId disagree; send one.')
  }
  const id = (header ?? query)?.trim()
  if (id === undefined || id === '') return null
  if (!EVENT_ID.test(id)) {
    throw new AppError(
      'VALIDATION_FAILED',
      'Last-Event-ID must be the id of an event received (24 hex digits).',
    )
  }
  return id
}

/**
 * When the caller's auth token expires (the stream ends then) and when it was issued (a revocation
 * after it ends the stream); the token lifetime and 0 if it cannot tell.
 */
async function tokenTimes(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<{ expiresAt: number; issuedAt: number }> {
  const header = request.headers.authorization
  const token = header ? /^Bearer +(\S+) *$/i.exec(header)?.[1] : request.cookies.jsonwebtoken
  if (!token) return { expiresAt: Date.now() + ctx.config.authTokenTtlMs, issuedAt: 0 }
  try {
    const { expiresAt, issuedAt } = await ctx.tokens.verifyAuthToken(token)
    return { expiresAt, issuedAt }
  } catch {
    // The route's hook accepted the token a moment ago, so it expired (or was revoked) since: the
    // stream ends at the next heartbeat, as one whose token expires does. (A full TTL here let a
    // stream outlive its token when the machine was slow enough for it to expire in between.)
    return { expiresAt: Date.now(), issuedAt: 0 }
  }
}

/** Starts the SSE response on the raw socket (the reply is hijacked) and answers the hub's sink. */
function openSink(request: FastifyRequest, reply: FastifyReply): StreamSink {
  reply.hijack()
  const res = reply.raw
  // The client may have left while the hub read the starting point: nothing to answer then.
  if (!res.destroyed) openResponse(request, res)
  return {
    write(text) {
      if (!res.writableEnded && !res.destroyed) res.write(text)
    },
    bufferedBytes: () => (res.destroyed ? 0 : res.writableLength),
    drained: (limit) => socketDrained(res.socket, limit),
    end(lastWords) {
      if (!res.writableEnded && !res.destroyed) res.end(lastWords)
      // A reader that does not read its last bytes loses its socket (and the bytes) after the grace.
      setTimeout(() => res.destroy(), END_GRACE_MS).unref()
    },
  }
}

/** The answer's head and a first comment, so the client knows at once that the stream is open. */
function openResponse(request: FastifyRequest, res: FastifyReply['raw']): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // Proxies such as nginx would otherwise buffer the stream.
    'x-accel-buffering': 'no',
    // Not reused afterwards: once the stream ends (shutdown, cut-off) the socket closes with it.
    connection: 'close',
    'x-request-id': request.id,
  })
  res.write(': stream open\n\n')
}

/** How often a socket over its bound is looked at again, besides its 'drain' events. */
const DRAIN_RECHECK_MS = 50

/**
 * Resolves once `socket` holds at most `limit` unsent bytes, or is gone. It watches the socket
 * itself: the response emits 'drain' only after one of its own writes returned false, and the
 * socket's 'drain' only after a write to it did, so a timer looks again as well.
 */
async function socketDrained(socket: Socket | null, limit: number): Promise<void> {
  while (socket && !socket.destroyed && socket.writableLength > limit) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        socket.off('drain', done)
        socket.off('close', done)
        resolve()
      }
      const timer = setTimeout(done, DRAIN_RECHECK_MS)
      socket.on('drain', done)
      socket.on('close', done)
    })
  }
}

/** The connection under the request closed (the response's 'close' was emitted, or is due). */
function connectionGone(request: FastifyRequest, reply: FastifyReply): boolean {
  return reply.raw.destroyed || request.raw.socket.destroyed
}

export interface StreamRequest {
  events?: string
  lastEventId?: string
  header?: string
}

/**
 * Answers the stream: a slot (or 429), its starting point, the headers, then the hub sends until
 * the socket closes.
 */
export async function serveStream(
  ctx: AppContext,
  hub: StreamHub,
  request: FastifyRequest,
  reply: FastifyReply,
  asked: StreamRequest,
): Promise<void> {
  const events = eventsFilter(asked.events)
  const resumeAfter = lastEventId(asked.header, asked.lastEventId)
  const { expiresAt, issuedAt } = await tokenTimes(ctx, request)
  // A browser's stream comes with its session cookie: the stream ends when that session does.
  const sessionId = await requestSessionId(ctx, request)
  // From here to the close listener nothing awaits. The client may have left during an await
  // before (this one, or the authentication hook's): its 'close' was emitted already and a listener
  // added now would never run, so the slot it took would stay taken until restart.
  if (connectionGone(request, reply)) {
    reply.hijack()
    return
  }
  const { accountId, email } = request.auth
  const subscriber = hub.admit(accountId)
  // Before anything can fail: the slot is freed whenever the request ends, answered or not.
  reply.raw.once('close', () => hub.release(subscriber))
  const want = { accountId, email, events, lastEventId: resumeAfter, expiresAt, issuedAt, sessionId }
  await hub.start(subscriber, want, () => openSink(request, reply))
}
