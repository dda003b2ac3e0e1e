// The live event stream (GET /events/stream) as an async iterable of typed envelopes. fetch
// streaming only (no Node import), so it runs in Node and in browsers. A dropped connection is
// reopened with Last-Event-ID (1 s doubling to 30 s), so a consumer sees every event once, in order.
import { problemError, TesseraError } from './errors.ts'
import { errorFromAnswer, networkError, type Tokens } from './http.ts'
import type { WebhookEnvelope, WebhookEventName } from './webhooks.ts'

/** One Server-Sent Events frame (comments are skipped; multi-line data is joined with \n). */
export interface SseFrame {
  id?: string
  event: string
  data: string
}

/** Splits a Server-Sent Events byte stream into frames (LF or CRLF, frames split anywhere). */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  // A reader, not `for await` over the stream: Safari's streams are not async-iterable.
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let frame: { id?: string; event?: string; data: string[] } = { data: [] }
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffer += decoder.decode(read.value, { stream: true })
      for (let end = buffer.search(/\r?\n/); end >= 0; end = buffer.search(/\r?\n/)) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(buffer[end] === '\r' ? end + 2 : end + 1)
        if (line !== '') {
          addField(frame, line)
          continue
        }
        if (frame.data.length > 0 || frame.event) {
          yield {
            ...(frame.id ? { id: frame.id } : {}),
            event: frame.event ?? 'message',
            data: frame.data.join('\n'),
          }
        }
        frame = { data: [] }
      }
    }
  } finally {
    reader.releaseLock()
  }
}

function addField(frame: { id?: string; event?: string; data: string[] }, line: string): void {
  if (line.startsWith(':')) return
  const colon = line.indexOf(':')
  const field = colon < 0 ? line : line.slice(0, colon)
  const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
  if (field === 'id') frame.id = value
  else if (field === 'event') frame.event = value
  else if (field === 'data') frame.data.push(value)
}

/**
 * What the stream yields: an event (its `id` is the position to resume after), or a `reset`: the
 * Last-Event-ID given was unknown (older than the retention, or never this account's), so events
 * between it and now may be missing; the stream goes on from now.
 */
export type StreamItem = { type: 'event'; id: string; envelope: WebhookEnvelope } | { type: 'reset' }

export interface EventsOptions {
  /** Only these events (default: all the account's webhooks could receive). */
  events?: readonly WebhookEventName[]
  /** Resume after this event id. */
  lastEventId?: string
  /** Ends the iteration (also `break` in a for-await loop). */
  signal?: AbortSignal
  /** Called each time a connection is open (the server has the subscription). */
  onOpen?: () => void
}

export interface StreamTransport {
  url: string
  fetch: typeof globalThis.fetch
  tokens: Tokens
  headers: Record<string, string>
  /** `include` in cookie mode (the cookies are the credentials), else `omit`. */
  credentials?: 'include' | 'omit'
}

const MAX_BACKOFF_MS = 30_000

/**
 * The server ended the stream because the session it was opened with ended (a browser's stream
 * carries its session cookie): taken over by a newer sign-in, ended or expired. Reopening would be
 * refused with the same 401, so the stream ends with it now.
 */
function sessionEnded(data: string): TesseraError {
  let body: { code?: unknown; detail?: unknown } = {}
  try {
    body = JSON.parse(data) as typeof body
  } catch {
    // Keeps the generic code below.
  }
  const code =
    body.code === 'SESSION_SUPERSEDED' || body.code === 'SESSION_EXPIRED' ? body.code : 'SESSION_DELETED'
  const detail = typeof body.detail === 'string' ? body.detail : 'The session ended.'
  return problemError({ status: 401, code, detail, title: 'Unauthorized' })
}

/**
 * The stream, reopened after drops; 4xx answers (bad filter, 401, 429) end it with a TesseraError,
 * and so does a `session_ended` frame (401 with the session's code).
 */
export async function* liveEvents(
  transport: StreamTransport,
  options: EventsOptions = {},
): AsyncGenerator<StreamItem> {
  let lastEventId = options.lastEventId
  let backoff = 1000
  while (!options.signal?.aborted) {
    let body: ReadableStream<Uint8Array>
    try {
      body = await open(transport, options, lastEventId)
    } catch (error) {
      if (error instanceof TesseraError && error.status >= 400 && error.status < 500) throw error
      if (options.signal?.aborted) return
      await pause(backoff, options.signal)
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
      continue
    }
    backoff = 1000
    options.onOpen?.()
    try {
      for await (const frame of sseFrames(body)) {
        if (frame.event === 'reset') yield { type: 'reset' }
        else if (frame.event === 'session_ended') throw sessionEnded(frame.data)
        else if (frame.id) {
          lastEventId = frame.id
          yield { type: 'event', id: frame.id, envelope: JSON.parse(frame.data) as WebhookEnvelope }
        }
      }
    } catch (error) {
      if (error instanceof TesseraError) throw error
      // The connection dropped mid-stream: reopened below from the last event received.
    }
    if (!options.signal?.aborted) await pause(backoff, options.signal)
  }
}

async function open(
  transport: StreamTransport,
  options: EventsOptions,
  lastEventId: string | undefined,
): Promise<ReadableStream<Uint8Array>> {
  const query = options.events?.length ? `?events=${options.events.join(',')}` : ''
  const headers: Record<string, string> = { ...transport.headers, accept: 'text/event-stream' }
  if (transport.tokens.auth) headers.authorization = `Bearer ${transport.tokens.auth}`
  if (lastEventId) headers['last-event-id'] = lastEventId
  let response: Response
  try {
    response = await transport.fetch(`${transport.url.replace(/\/+$/, '')}/events/stream${query}`, {
      headers,
      credentials: transport.credentials ?? 'omit',
      redirect: 'error',
      ...(options.signal ? { signal: options.signal } : {}),
    })
  } catch (error) {
    throw networkError(error, options.signal)
  }
  if (!response.ok || !response.body) {
    throw errorFromAnswer(response, await response.json().catch(() => null))
  }
  return response.body
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
