// The transactional event outbox. emitEvent runs inside the caller's transaction: the event row and
// one delivery per subscribed webhook commit (or roll back) together with the change itself.
import { randomUUID } from 'node:crypto'
import type { Config } from '../../platform/config.ts'
import type { Db, Executor, Tx } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import { WakeChannel } from '../../platform/jobs.ts'
import type { Job } from './claim.ts'
import type { EventName } from './events.ts'
import { inList, listParam, run } from './statements.ts'

/** Wakes delivery workers (on PostgreSQL by NOTIFY, delivered at commit only). */
export const deliveryChannel = new WakeChannel('tessera_webhook_deliveries')

export interface EmitInput {
  event: EventName
  /** The file the event concerns (envelope `file`). */
  fileId: string
  /** The file's owner, who may always read it. */
  fileOwnerId: string
  /** Other accounts that may read the file (shares); their webhooks receive the event too. */
  readerAccountIds?: readonly string[]
  /** Event-specific content (envelope `data`), exactly the spec's shape. */
  data: unknown
  /** Trigger time in ms (envelope `runTimestamp`); default now. */
  runTimestamp?: number
}

export interface Emitted {
  eventId: string
  /** Deliveries queued (paused ones included). */
  deliveries: number
}

/**
 * An in-process delivery worker that takes new deliveries straight from the emitting transaction
 * (SQLite): emitEvent writes them already leased to it and hands them over at commit, so they go
 * out at once, without a claim round trip through the database.
 */
export interface HandOff {
  /** The worker's lease holder id. */
  readonly id: string
  readonly leaseMs: number
  /** Whether it can start one more attempt for `webhookId`, whose live leases number `leases`. */
  canTake(webhookId: string, leases: number): boolean
  /** Holds a slot for a delivery of the transaction in progress. */
  reserve(): void
  /** The transaction ended: committed jobs are sent now, slots of rolled-back ones freed. */
  settle(jobs: Job[], committed: boolean): void
}

const handOffs = new Map<Db, HandOff>()

/** Registers the worker that takes new deliveries of `db` directly; answers the unregister. */
export function registerHandOff(db: Db, worker: HandOff): () => void {
  if (db.dialect !== 'sqlite') return () => {}
  handOffs.set(db, worker)
  return () => {
    if (handOffs.get(db) === worker) handOffs.delete(db)
  }
}

export async function emitEvent(
  ctx: { db: Db; config: Pick<Config, 'webhookRetryScheduleMs'> },
  tx: Tx,
  input: EmitInput,
): Promise<Emitted> {
  const now = Date.now()
  const event: EventRow = {
    id: newId(now),
    event: input.event,
    fileId: input.fileId,
    data: JSON.stringify(input.data ?? {}),
    runTimestamp: input.runTimestamp ?? now,
    createdAt: now,
  }
  const readers = [...new Set([input.fileOwnerId, ...(input.readerAccountIds ?? [])])]
  const dueAt = now + (ctx.config.webhookRetryScheduleMs[0] ?? 0)
  const deliveries =
    ctx.db.dialect === 'sqlite'
      ? await emitSqlite(ctx.db, tx, event, readers, dueAt)
      : await emitPostgres(ctx.db, tx, event, readers, dueAt)
  return { eventId: event.id, deliveries }
}

interface EventRow {
  id: string
  event: EventName
  fileId: string
  /** The envelope's `data`, as JSON text. */
  data: string
  runTimestamp: number
  createdAt: number
}

// ---- SQLite ------------------------------------------------------------------------------------

const EVENT_INSERT =
  'insert into events (id, event, file_id, data, run_timestamp, created_at) values (?, ?, ?, ?, ?, ?)'

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

interface Subscriber {
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

async function emitSqlite(db: Db, tx: Tx, event: EventRow, readers: string[], dueAt: number) {
  const now = event.createdAt
  await run(tx, db, EVENT_INSERT, [event.id, event.event, event.fileId, event.data, event.runTimestamp, now])
  const { rows } =
    readers.length === 1
      ? await run<Subscriber>(tx, db, SQLITE_SUBSCRIBERS_OF_ONE, [now, now, event.event, readers[0]])
      : await run<Subscriber>(tx, db, SQLITE_SUBSCRIBERS, [
          now,
          now,
          event.event,
          listParam('sqlite', readers),
        ])
  const handOff = handOffs.get(db)
  const handed: Job[] = []
  let pending = 0
  for (const hook of rows) {
    const id = newId(now)
    const uuid = randomUUID()
    let status = hook.disabled === 1 ? 'paused' : 'pending'
    let lease: [string | null, number | null] = [null, null]
    if (status === 'pending' && hook.queued === 0 && handOff?.canTake(hook.id, hook.leases)) {
      status = 'delivering'
      lease = [handOff.id, now + handOff.leaseMs]
      handOff.reserve()
      handed.push({
        id,
        uuid,
        attempts: 0,
        owner_email: hook.email,
        webhook_id: hook.id,
        next_attempt_at: dueAt,
        url: hook.url,
        secret: hook.secret,
        service_token: hook.service_token,
        previous_secret: hook.previous_secret,
        previous_secret_expires_at: hook.previous_secret_expires_at,
        webhook_disabled: 0,
        is_test: 0,
        event_created_at: now,
        file_id: event.fileId,
        event: event.event,
        data: event.data,
        run_timestamp: event.runTimestamp,
      })
    } else if (status === 'pending') pending += 1
    await run(tx, db, SQLITE_DELIVERY_INSERT, [
      id,
      uuid,
      event.id,
      hook.id,
      hook.email,
      status,
      dueAt,
      now,
      now,
      ...lease,
    ])
  }
  if (handOff && handed.length > 0) {
    const whenEnds = db.whenTransactionEnds
    if (!whenEnds) throw new Error('a hand-off needs Db.whenTransactionEnds')
    whenEnds((committed) => handOff.settle(handed, committed))
  }
  // The worker's claim queues behind this transaction (one connection), so it sees the outcome.
  if (pending > 0) await wakeWorkers(db, tx)
  return rows.length
}

// ---- PostgreSQL --------------------------------------------------------------------------------

// Delivery ids and uuids are made here (time-ordered ids, v4 uuids) and handed to the statement that
// picks the subscribers; this many per statement covers nearly every event in one go.
const IDS_PER_STATEMENT = 4

const PG_COLUMNS = `id, uuid, event_id, webhook_id, owner_email, status, attempts, next_attempt_at,
  created_at, updated_at, is_test`
const PG_SUBSCRIBERS = `select w.id, w.disabled, a.email, row_number() over (order by w.id) as n
  from webhooks w join accounts a on a.id = w.owner_id
  where w.event = ? and ${inList('postgres', 'w.owner_id')} and a.disabled = 0`
// The event, its deliveries and the NOTIFY in one round trip. The NOTIFY goes out at commit, and
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
      then (select 1 from pg_notify('${deliveryChannel.name}', '')) end as notified
  from ins`
/** The first IDS_PER_STATEMENT deliveries, with the event row. */
const PG_FIRST = `with ev as (${EVENT_INSERT}), ${PG_DELIVERIES}`
/** Deliveries past the first round (an event with many subscribers). */
const PG_MORE = `with ${PG_DELIVERIES}`

async function emitPostgres(db: Db, tx: Tx, event: EventRow, readers: string[], dueAt: number) {
  const now = event.createdAt
  const eventParams = [event.id, event.event, event.fileId, event.data, event.runTimestamp, now]
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
      offset === 0 ? [...eventParams, ...params] : params,
    )
    const inserted = Number(rows[0]?.n ?? 0)
    total += inserted
    if (inserted < IDS_PER_STATEMENT) return total
  }
}

/** Tells delivery workers that deliveries became due (see WakeChannel.wake). */
export function wakeWorkers(db: Db, executor: Executor): Promise<void> {
  return deliveryChannel.wake(db, executor)
}
