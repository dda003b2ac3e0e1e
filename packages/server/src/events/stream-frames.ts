// What a live event stream sends: Server-Sent Events frames around the webhook envelope.
import { createHash } from 'node:crypto'
import type { StreamRow } from './stream-store.ts'

/**
 * The envelope's `uuid` on a stream: a webhook delivery has its own random uuid, but a stream has
 * no delivery row, so it is derived (a name-based, version 5 layout) from the event and the reader:
 * the same event reaches the same account with the same uuid on every resume, and each account with
 * its own, as with webhooks.
 */
export function streamUuid(eventId: string, accountId: string): string {
  const hash = createHash('sha1').update(`tessera-stream:${eventId}:${accountId}`).digest()
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * The webhook envelope `{file, event, data, owner, runTimestamp, uuid}` in the order and spelling the
 * delivery engine sends it (delivery/send.ts envelopeBody): `data` is the stored JSON text, spliced in.
 */
function streamEnvelope(row: StreamRow, ownerEmail: string): string {
  const text = JSON.stringify
  return `{"file":${text(row.file_id)},"event":${text(row.event)},"data":${row.data},"owner":${text(ownerEmail)},"runTimestamp":${text(Number(row.run_timestamp))},"uuid":${text(streamUuid(row.id, row.account_id))}}`
}

/** One event as an SSE frame. JSON text holds no line breaks, so `data` is one line. */
export function eventFrame(row: StreamRow, ownerEmail: string): string {
  return `id: ${row.id}\nevent: ${row.event}\ndata: ${streamEnvelope(row, ownerEmail)}\n\n`
}

/** The frame telling a resuming client that events it asked for are gone or were never its own. */
export function resetFrame(lastEventId: string): string {
  const data = JSON.stringify({
    reason: 'unknown_last_event_id',
    lastEventId,
    detail: 'Events after this ID cannot be replayed; the stream continues from now.',
  })
  return `event: reset\ndata: ${data}\n\n`
}

const SESSION_END_DETAIL: Record<string, string> = {
  SESSION_SUPERSEDED: 'A newer session of this account replaced this one.',
  SESSION_DELETED: 'The session was ended.',
  SESSION_EXPIRED: 'The session expired without keep-alive.',
}

/**
 * The last frame of a stream whose session ended: `code` is what its requests are now refused with
 * (401), so a client can tell its user at once instead of at its next request.
 */
export function sessionEndFrame(code: string): string {
  const data = JSON.stringify({ code, detail: SESSION_END_DETAIL[code] ?? 'The session ended.' })
  return `event: session_ended\ndata: ${data}\n\n`
}

/** An SSE comment (ignored by EventSource): heartbeats and the reason a stream ends. */
export const comment = (text: string): string => `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`

export const PING = comment('ping')
