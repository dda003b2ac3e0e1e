// What a live event stream sends: Server-Sent Events frames around the webhook envelope.
import { streamUuid } from '../events/index.ts'
import type { StreamRow } from './store.ts'

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
