// The transactional event outbox. emitEvent runs inside the caller's transaction: the event row and
// one delivery per subscribed webhook commit (or roll back) together with the change itself.
import { randomUUID } from 'node:crypto'
import type { Config } from '../../platform/config.ts'
import type { Db, Dialect, Executor, Tx } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import { WakeChannel } from '../../platform/jobs.ts'
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

// Delivery ids and uuids are made here (time-ordered ids, v4 uuids) and handed to the statement that
// picks the subscribers; this many per statement covers nearly every event in one go.
const IDS_PER_STATEMENT = 4

interface Texts {
  /** The event row (SQLite; PostgreSQL inserts it within `first`). */
  event: string
  /** The first IDS_PER_STATEMENT deliveries; on PostgreSQL also the event row and the NOTIFY. */
  first: string
  /** Deliveries past the first round (an event with many subscribers). */
  more: string
}

const EVENT_INSERT =
  'insert into events (id, event, file_id, data, run_timestamp, created_at) values (?, ?, ?, ?, ?, ?)'

function texts(dialect: Dialect): Texts {
  const columns = `id, uuid, event_id, webhook_id, owner_email, status, attempts, next_attempt_at,
    created_at, updated_at, is_test`
  // Who may read the file decides who hears about it; nobody else's webhooks see the event.
  const subscribers = `select w.id, w.disabled, a.email, row_number() over (order by w.id) as n
    from webhooks w join accounts a on a.id = w.owner_id
    where w.event = ? and ${inList(dialect, 'w.owner_id')} and a.disabled = 0`
  const status = `case when s.disabled = 1 then 'paused' else 'pending' end`
  if (dialect === 'sqlite') {
    // better-sqlite3 binds numbers as REAL; `->>` takes an array index only as an INTEGER.
    const deliveries = `insert into deliveries (${columns})
      select ? ->> cast(s.n - 1 - ? as integer), ? ->> cast(s.n - 1 - ? as integer), ?, s.id, s.email,
        ${status}, 0, ?, ?, ?, 0
      from (${subscribers}) s where s.n > ? and s.n <= ? returning status`
    return { event: EVENT_INSERT, first: deliveries, more: deliveries }
  }
  // PostgreSQL: the event, its deliveries and the NOTIFY in one round trip. The NOTIFY goes out at
  // commit, and only when a delivery is pending.
  const deliveries = `s as (${subscribers}),
    ins as (
      insert into deliveries (${columns})
      select (?::text[])[s.n - ?::int], (?::text[])[s.n - ?::int], ?::text, s.id, s.email, ${status}, 0,
        ?::bigint, ?::bigint, ?::bigint, 0
      from s where s.n > ?::int and s.n <= ?::int returning status
    )
    select count(*) as n, count(*) filter (where status = 'pending') as pending,
      case when count(*) filter (where status = 'pending') > 0
        then (select 1 from pg_notify('${deliveryChannel.name}', '')) end as notified
    from ins`
  return { event: '', first: `with ev as (${EVENT_INSERT}), ${deliveries}`, more: `with ${deliveries}` }
}

const TEXTS: Record<Dialect, Texts> = { sqlite: texts('sqlite'), postgres: texts('postgres') }

export async function emitEvent(
  ctx: { db: Db; config: Pick<Config, 'webhookRetryScheduleMs'> },
  tx: Tx,
  input: EmitInput,
): Promise<Emitted> {
  const { dialect } = ctx.db
  const sql = TEXTS[dialect]
  const now = Date.now()
  const eventId = newId(now)
  const event = [
    eventId,
    input.event,
    input.fileId,
    JSON.stringify(input.data ?? {}),
    input.runTimestamp ?? now,
    now,
  ]
  const readers = listParam(dialect, [...new Set([input.fileOwnerId, ...(input.readerAccountIds ?? [])])])
  const dueAt = now + (ctx.config.webhookRetryScheduleMs[0] ?? 0)
  const total = { deliveries: 0, pending: 0 }
  // Rounds of IDS_PER_STATEMENT subscribers (in id order) until one comes back short.
  for (let offset = 0; ; offset += IDS_PER_STATEMENT) {
    const ids: string[] = []
    const uuids: string[] = []
    for (let i = 0; i < IDS_PER_STATEMENT; i++) {
      ids.push(newId(now))
      uuids.push(randomUUID())
    }
    const chosen = [input.event, readers]
    const window = [offset, offset + IDS_PER_STATEMENT]
    let inserted: number
    let pending: number
    if (dialect === 'sqlite') {
      if (offset === 0) await run(tx, dialect, sql.event, event)
      const { rows } = await run<{ status: string }>(tx, dialect, sql.more, [
        JSON.stringify(ids),
        offset,
        JSON.stringify(uuids),
        offset,
        eventId,
        dueAt,
        now,
        now,
        ...chosen,
        ...window,
      ])
      inserted = rows.length
      pending = rows.filter((row) => row.status === 'pending').length
    } else {
      const params = [...chosen, ids, offset, uuids, offset, eventId, dueAt, now, now, ...window]
      const { rows } = await run<{ n: number; pending: number }>(
        tx,
        dialect,
        offset === 0 ? sql.first : sql.more,
        offset === 0 ? [...event, ...params] : params,
      )
      inserted = Number(rows[0]?.n ?? 0)
      pending = Number(rows[0]?.pending ?? 0)
    }
    total.deliveries += inserted
    total.pending += pending
    if (inserted < IDS_PER_STATEMENT) break
  }
  // SQLite: wakes the in-process workers (their claim queues behind this transaction). PostgreSQL:
  // the statement sent the NOTIFY, which reaches every worker, this process's too, at commit.
  if (dialect === 'sqlite' && total.pending > 0) await wakeWorkers(ctx.db, tx)
  return { eventId, deliveries: total.deliveries }
}

/** Tells delivery workers that deliveries became due (see WakeChannel.wake). */
export function wakeWorkers(db: Db, executor: Executor): Promise<void> {
  return deliveryChannel.wake(db, executor)
}
