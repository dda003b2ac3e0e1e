// `tessera listen [--events a,b] [--forward-to URL]`: prints the account's events as they commit
// (GET /events/stream) and, like the Stripe CLI, can forward each one, signed with Standard
// Webhooks headers, to a local receiver. Resumes with Last-Event-ID after a dropped connection.
import { createHmac, randomBytes } from 'node:crypto'
// The SSE parser is the SDK's (the same frames the SDK's events() reads).
import { type SseFrame, sseFrames } from '@tessera/client'
import { ClientFailure } from './credentials.ts'

export { type SseFrame, sseFrames }

export interface ListenOptions {
  url: string
  authToken: string
  events?: string
  forwardTo?: string
  signal: AbortSignal
  write: (line: string) => void
}

/**
 * A fresh secret per run, printed at start. As for a webhook's secretToken, the HMAC key is the
 * secret's UTF-8 bytes: verifyWebhook takes `secret`, and a Standard Webhooks library
 * (`new Webhook(…)`) takes `standard` = `whsec_` + base64 of those bytes, as is.
 */
function forwardingSecret(): { secret: string; standard: string } {
  const secret = randomBytes(24).toString('base64url')
  return { secret, standard: `whsec_${Buffer.from(secret, 'utf8').toString('base64')}` }
}

/** Standard Webhooks headers of one forwarded envelope (the server signs deliveries the same way). */
function signedHeaders(msgId: string, body: string, secret: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000)
  const signature = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${msgId}.${timestamp}.${body}`)
    .digest('base64')
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${signature}`,
  }
}

const MAX_BACKOFF_MS = 30_000

/** Runs until `signal` aborts; reconnects (1 s doubling to 30 s) from the last event received. */
export async function listen(options: ListenOptions): Promise<void> {
  const secrets = options.forwardTo ? forwardingSecret() : undefined
  const secret = secrets?.secret
  if (secrets) {
    options.write(`Forwarding to ${options.forwardTo}; webhook signing secret: ${secrets.secret}`)
    options.write(`  the same for new Webhook(secret) of a Standard Webhooks library: ${secrets.standard}`)
  }
  let lastEventId: string | undefined
  let backoff = 1000
  while (!options.signal.aborted) {
    try {
      const response = await openStream(options, lastEventId)
      options.write(`Ready: listening for ${options.events ?? 'all events'} on ${options.url}`)
      backoff = 1000
      for await (const frame of sseFrames(response)) {
        if (frame.id) lastEventId = frame.id
        await handleFrame(frame, options, secret)
      }
      if (!options.signal.aborted) options.write('stream closed by the server; reconnecting')
    } catch (error) {
      if (options.signal.aborted) return
      if (error instanceof ClientFailure) throw error
      const retryAfter = error instanceof RetryLater ? error.ms : backoff
      options.write(
        `connection lost (${(error as Error).message}); reconnecting in ${Math.round(retryAfter / 1000)} s`,
      )
      await delay(retryAfter, options.signal)
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2)
    }
  }
}

class RetryLater extends Error {
  readonly ms: number

  constructor(ms: number) {
    super('the server is busy')
    this.ms = ms
  }
}

async function openStream(
  options: ListenOptions,
  lastEventId: string | undefined,
): Promise<ReadableStream<Uint8Array>> {
  const target = new URL(`${options.url}/events/stream`)
  if (options.events) target.searchParams.set('events', options.events)
  const response = await fetch(target, {
    headers: {
      authorization: `Bearer ${options.authToken}`,
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal: options.signal,
  })
  if (response.ok && response.body) return response.body
  const text = await response.text().catch(() => '')
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'))
    throw new RetryLater(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 5000)
  }
  if (response.status >= 500) throw new Error(`HTTP ${response.status}`)
  // 4xx: a bad filter, an expired token: reconnecting will not help.
  const detail = problemDetail(text) ?? `HTTP ${response.status}`
  const hint = response.status === 401 ? " (run 'tessera login' again)" : ''
  throw new ClientFailure(`the event stream refused: ${detail}${hint}`)
}

function problemDetail(text: string): string | undefined {
  try {
    const problem = JSON.parse(text) as { code?: string; detail?: string }
    return [problem.code, problem.detail].filter(Boolean).join(': ') || undefined
  } catch {
    return undefined
  }
}

async function handleFrame(
  frame: SseFrame,
  options: ListenOptions,
  secret: string | undefined,
): Promise<void> {
  if (frame.event === 'reset') {
    options.write(`warning: events may have been missed (${frame.data}); continuing from now`)
    return
  }
  let envelope: { file?: string; uuid?: string; runTimestamp?: number }
  try {
    envelope = JSON.parse(frame.data) as typeof envelope
  } catch {
    options.write(`unreadable frame ${frame.event}: ${frame.data.slice(0, 200)}`)
    return
  }
  const time = new Date(envelope.runTimestamp ?? Date.now()).toISOString()
  options.write(`${time}  ${frame.event}  file ${envelope.file ?? '-'}  ${envelope.uuid ?? ''}`)
  // webhook-id is the envelope's uuid, as in a webhook delivery: receivers dedupe by it.
  const msgId = envelope.uuid ?? frame.id ?? randomBytes(12).toString('hex')
  if (options.forwardTo && secret) await forward(options.forwardTo, frame, msgId, secret, options.write)
}

const FORWARD_TIMEOUT_MS = 15_000

/** POSTs the envelope byte for byte, as a webhook delivery would, and prints the answer. */
async function forward(
  to: string,
  frame: SseFrame,
  msgId: string,
  secret: string,
  write: (line: string) => void,
): Promise<void> {
  const started = performance.now()
  const headers = signedHeaders(msgId, frame.data, secret)
  try {
    const response = await fetch(to, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'tessera-cli-listen', ...headers },
      body: frame.data,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    })
    await response.arrayBuffer().catch(() => undefined)
    write(`  -> POST ${to} [${response.status}] ${Math.round(performance.now() - started)} ms`)
  } catch (error) {
    write(`  -> POST ${to} failed: ${(error as Error).message}`)
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        resolve()
      },
      { once: true },
    )
  })
}
