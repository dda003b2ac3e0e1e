// SQL of the outbox: the event row and its deliveries, written in the emitting transaction. Tables:
// `events` belongs to the outbox; of `deliveries` it only inserts new rows (the delivery engine owns
// their life after that). Hot path: plain-text statements (platform/db/raw-sql.ts).
import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Db, Tx } from '../platform/db/index.ts'
import { inList, listParam, run } from '../platform/db/raw-sql.ts'
import { newId } from '../platform/ids.ts'
import { PG_STREAM_CTE, SQLITE_STREAM_INSERT, streamNotify } from './stream-log.ts'
import type { DeliveriesTable, EventsTable } from './tables.ts'
import { deliveryChannel, streamChannel } from './wake.ts'

export interface EventRow {
  id: string
  event: string
  fileId: string
  /** The envelope's `data`, as JSON text. */
  data: string
  runTimestamp: number
  createdAt: number
}

const EVENT_INSERT =
  'insert into events (id, event, file_id, data, run_timestamp, created_at) values (?, ?, ?, ?, ?, ?)'

const eventParams = (event: EventRow) => [
  event.id,
  event.event,
  event.fileId,
  event.data,
  event.runTimestamp,
  event.createdAt,
]

/**
 * SQLite runs statements on this thread without round trips: the outbox writes row by row there,
 * which also lets it hand deliveries over (outbox.ts). PostgreSQL gets one statement per event.
 */
export function writesRowByRow(db: Db): boolean {
  return db.dialect === 'sqlite'
}

// ---- row by row (SQLite) -----------------------------------------------------------------------

// Who may read the file decides who hears about it; nobody else's webhooks see the event. With
// each subscriber, what a hand-off needs: its live leases (all processes: SQLite writers take turns,
// so the count holds until commit) and whether older deliveries already wait for it. Most files
// have one reader, their owner: that case compares with `=` instead of walking a JSON list.
const sqliteSubscribers = (readers: string) => `select w.id, w.disabled, a.email, w.url, w.secret,
    w.service_token, w.previous_secret, w.previous_secret_expires_at,
    (select count(*) from deliveries d
     where d.status = 'delivering' and d.webhook_id = w.id and d.lease_expires_at > ?) as leases,
    exists (select 1 from deliveries d
     where d.status = 'pending' and d.webhook_id = w.id and d.next_attempt_at <= ?) as queued
  from webhooks w join accounts a on a.id = w.owner_id
  where w.event = ? and ${readers} and a.disabled = 0`
const SQLITE_SUBSCRIBERS_OF_ONE = sqliteSubscribers('w.owner_id = ?')
const SQLITE_SUBSCRIBERS = sqliteSubscribers(inList('sqlite', 'w.owner_id'))

const SQLITE_DELIVERY_INSERT = `insert into deliveries (id, uuid, event_id, webhook_id, owner_email, status,
    attempts, next_attempt_at, created_at, updated_at, is_test, leased_by, lease_expires_at)
  values (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, 0, ?, ?)`

export interface Subscriber {
  id: string
  disabled: number
  email: string
  url: string
  secret: string
  service_token: string
  previous_secret: string | null
  previous_secret_expires_at: number | null
  leases: number
  queued: number
}

export async function insertEvent(db: Db, tx: Tx, event: EventRow): Promise<void> {
  await run(tx, db, EVENT_INSERT, eventParams(event))
}

/** The event's rows in the live stream's log, one per enabled reader; answers how many. */
export async function insertStreamRows(db: Db, tx: Tx, eventId: string, readers: string[]): Promise<number> {
  const { affected } = await run(tx, db, SQLITE_STREAM_INSERT, [eventId, listParam(db.dialect, readers)])
  return affected
}

/** The webhooks of `event` owned by one of `readers` (enabled accounts only), as of `now`. */
export async function subscribersOf(
  db: Db,
  tx: Tx,
  event: string,
  readers: string[],
  now: number,
): Promise<Subscriber[]> {
  const { rows } =
    readers.length === 1
      ? await run<Subscriber>(tx, db, SQLITE_SUBSCRIBERS_OF_ONE, [now, now, event, readers[0]])
      : await run<Subscriber>(tx, db, SQLITE_SUBSCRIBERS, [now, now, event, listParam(db.dialect, readers)])
  return rows
}

export interface NewDelivery {
  id: string
  uuid: string
  eventId: string
  webhookId: string
  ownerEmail: string
  status: string
  dueAt: number
  createdAt: number
  /** [holder, expiry] of a delivery handed over already leased; [null, null] otherwise. */
  lease: [string | null, number | null]
}

export async function insertDelivery(db: Db, tx: Tx, row: NewDelivery): Promise<void> {
  await run(tx, db, SQLITE_DELIVERY_INSERT, [
    row.id,
    row.uuid,
    row.eventId,
    row.webhookId,
    row.ownerEmail,
    row.status,
    row.dueAt,
    row.createdAt,
    row.createdAt,
    ...row.lease,
  ])
}

// ---- one statement per event (PostgreSQL) ------------------------------------------------------

// Delivery ids and uuids are made here (time-ordered ids, v4 uuids) and handed to the statement that
// picks the subscribers; this many per statement covers nearly every event in one go.
const IDS_PER_STATEMENT = 4

const PG_COLUMNS = `id, uuid, event_id, webhook_id, owner_email, status, attempts, next_attempt_at,
  created_at, updated_at, is_test`
const PG_SUBSCRIBERS = `select w.id, w.disabled, a.email, row_number() over (order by w.id) as n
  from webhooks w join accounts a on a.id = w.owner_id
  where w.event = ? and ${inList('postgres', 'w.owner_id')} and a.disabled = 0`
// The event, its deliveries (and, first round, its stream rows) and the NOTIFY in one round trip. The NOTIFY goes out at commit, and
// only when a delivery is pending.
const PG_DELIVERIES = `s as (${PG_SUBSCRIBERS}),
  ins as (
    insert into deliveries (${PG_COLUMNS})
    select (?::text[])[s.n - ?::int], (?::text[])[s.n - ?::int], ?::text, s.id, s.email,
      case when s.disabled = 1 then 'paused' else 'pending' end, 0, ?::bigint, ?::bigint, ?::bigint, 0
    from s where s.n > ?::int and s.n <= ?::int returning status
  )
  select count(*) as n, count(*) filter (where status = 'pending') as pending,
    case when count(*) filter (where status = 'pending') > 0
      then (select 1 from pg_notify('${deliveryChannel.name}', '')) end as notified`
/**
 * The first IDS_PER_STATEMENT deliveries, with the event row and its rows in the stream's log (and
 * the NOTIFY that wakes the stream hubs at commit).
 */
const PG_FIRST = `with ev as (${EVENT_INSERT}), ${PG_STREAM_CTE}, ${PG_DELIVERIES},
    ${streamNotify(streamChannel.name)}
  from ins`
/** Deliveries past the first round (an event with many subscribers). */
const PG_MORE = `with ${PG_DELIVERIES} from ins`

/** Writes the event and one delivery per subscriber, waking workers at commit; answers the count. */
export async function insertEventWithDeliveries(
  db: Db,
  tx: Tx,
  event: EventRow,
  readers: string[],
  dueAt: number,
): Promise<number> {
  const now = event.createdAt
  let total = 0
  // Rounds of IDS_PER_STATEMENT subscribers (in id order) until one comes back short. The NOTIFY
  // the statement sends reaches every worker, this process's too, at commit.
  for (let offset = 0; ; offset += IDS_PER_STATEMENT) {
    const ids: string[] = []
    const uuids: string[] = []
    for (let i = 0; i < IDS_PER_STATEMENT; i++) {
      ids.push(newId(now))
      uuids.push(randomUUID())
    }
    const params = [
      event.event,
      readers,
      ids,
      offset,
      uuids,
      offset,
      event.id,
      dueAt,
      now,
      now,
      offset,
      offset + IDS_PER_STATEMENT,
    ]
    const { rows } = await run<{ n: number }>(
      tx,
      db,
      offset === 0 ? PG_FIRST : PG_MORE,
      offset === 0 ? [...eventParams(event), event.id, readers, ...params] : params,
    )
    const inserted = Number(rows[0]?.n ?? 0)
    total += inserted
    if (inserted < IDS_PER_STATEMENT) return total
  }
}

// ---- test deliveries ---------------------------------------------------------------------------

/** A sample event and its one test delivery to one webhook (POST /webhook/:id/test). */
export async function insertTestDelivery(
  tx: Tx,
  event: Selectable<EventsTable>,
  delivery: Selectable<DeliveriesTable>,
): Promise<void> {
  await tx.insertInto('events').values(event).execute()
  await tx.insertInto('deliveries').values(delivery).execute()
}

// ---- test events of the live stream ------------------------------------------------------------

/** PostgreSQL: the event, its one stream row and the NOTIFY that wakes every hub at commit. */
const PG_STREAM_TEST = `with ev as (${EVENT_INSERT}), ${PG_STREAM_CTE}
  select ${streamNotify(streamChannel.name)}`

/**
 * A sample event in one reader's stream only (POST /events/test): the event row and one
 * `event_stream` row, no delivery. Answers whether the row was written (an enabled reader).
 */
export async function insertStreamTestEvent(
  db: Db,
  tx: Tx,
  event: EventRow,
  readerId: string,
): Promise<boolean> {
  if (writesRowByRow(db)) {
    await insertEvent(db, tx, event)
    return (await insertStreamRows(db, tx, event.id, [readerId])) > 0
  }
  const { rows } = await run<{ streamed: number | null }>(tx, db, PG_STREAM_TEST, [
    ...eventParams(event),
    event.id,
    [readerId],
  ])
  return rows[0]?.streamed != null
}
