// What the outbox writes for the live event stream, whose hub is a layer of its own (stream/): the
// rows of its log (`event_stream`, migration 0014), the NOTIFY that wakes the hubs, and the envelope
// `uuid` an event carries on a stream. The stream layer reads these rows; events/ never imports it,
// so what it needs of a hub is the port below, which stream/hub.ts implements.
import { createHash } from 'node:crypto'
import type { Waker } from '../platform/jobs.ts'

/** What emitEvent needs of the process's live stream hub: woken at commit on SQLite. */
export type StreamHub = Waker

// The reader rule is emitEvent's: the readers it was given (owner, shares, the finer item rules of
// the caller), enabled accounts only, exactly as the webhook fan-out picks its subscribers.
// SQLite: one writer at a time, so `seq` (assigned at insert) is commit order; tx is always 0.
export const SQLITE_STREAM_INSERT = `insert into event_stream (tx, event_id, account_id)
  select 0, ?, id from accounts where id in (select value from json_each(?)) and disabled = 0`
/**
 * A CTE for the PostgreSQL emit statement: the rows, and whether any was written. `tx` is the
 * emitting transaction's id (stream/postgres/store.ts explains why).
 */
export const PG_STREAM_CTE = `st as (
    insert into event_stream (tx, event_id, account_id)
    select pg_current_xact_id()::text::bigint, ?::text, id from accounts
    where id = any(?::text[]) and disabled = 0 returning 1
  )`
/** The NOTIFY that wakes every process's hub at commit; the payload (the transaction) makes one per transaction. */
export const streamNotify = (channel: string) =>
  `case when exists (select 1 from st) then
    (select 1 from pg_notify('${channel}', pg_current_xact_id()::text)) end as streamed`

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
