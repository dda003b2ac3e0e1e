// PostgreSQL's fan-out (events/subscribers.ts): one delivery per webhook of the event's readers,
// written by the outbox's own emit statement (statementPart: one round trip per event, tuned by
// `npm run bench:emit`), with the NOTIFY that wakes the workers at commit when one is pending. An
// event with more webhooks than one statement takes gets further statements of the same part.
import { randomUUID } from 'node:crypto'
import type { EmitContext, EmitHook, EmittedEvent, StatementPart } from '../../events/index.ts'
import type { Db, Tx } from '../../platform/db/index.ts'
import { run } from '../../platform/db/raw-sql.ts'
import { newId } from '../../platform/ids.ts'
import { deliveryChannel } from '../wake.ts'

// Delivery ids and uuids are made here (time-ordered ids, v4 uuids) and handed to the statement that
// picks the subscribers; this many per statement covers nearly every event in one go.
const IDS_PER_STATEMENT = 4

const COLUMNS = `id, uuid, event_id, webhook_id, owner_email, status, attempts, next_attempt_at,
  created_at, updated_at, is_test`
// Who may read the file decides who hears about it; nobody else's webhooks see the event.
const SUBSCRIBERS = `select w.id, w.disabled, a.email, row_number() over (order by w.id) as n
  from webhooks w join accounts a on a.id = w.owner_id
  where w.event = ? and w.owner_id = any(?::text[]) and a.disabled = 0`
// Subscribers `offset` + 1 to `offset` + IDS_PER_STATEMENT (in id order). The NOTIFY goes out at
// commit, and only when a delivery is pending; it reaches every worker, this process's too.
const CTES = `dlv_s as (${SUBSCRIBERS}),
  dlv_ins as (
    insert into deliveries (${COLUMNS})
    select (?::text[])[s.n - ?::int], (?::text[])[s.n - ?::int], ?::text, s.id, s.email,
      case when s.disabled = 1 then 'paused' else 'pending' end, 0, ?::bigint, ?::bigint, ?::bigint, 0
    from dlv_s s where s.n > ?::int and s.n <= ?::int returning status
  )`
const ANSWER = `(select count(*) from dlv_ins) as dlv_n,
  (select case when count(*) filter (where status = 'pending') > 0
     then (select 1 from pg_notify('${deliveryChannel.name}', '')) end from dlv_ins) as dlv_notified`
/** A statement of the part alone, for the deliveries past the first statement's. */
const MORE = `with ${CTES} select ${ANSWER}`

/** The part's parameters for subscribers past `offset`. */
function partParams(ctx: EmitContext, event: EmittedEvent, offset: number): unknown[] {
  const now = event.createdAt
  const dueAt = now + (ctx.config.webhookRetryScheduleMs[0] ?? 0)
  const ids: string[] = []
  const uuids: string[] = []
  for (let i = 0; i < IDS_PER_STATEMENT; i++) {
    ids.push(newId(now))
    uuids.push(randomUUID())
  }
  const last = offset + IDS_PER_STATEMENT
  return [event.event, event.readers, ids, offset, uuids, offset, event.id, dueAt, now, now, offset, last]
}

const statementPart: StatementPart = {
  ctes: CTES,
  columns: ANSWER,
  params: (ctx, event) => partParams(ctx, event, 0),
}

export function postgresFanOut(db: Db): EmitHook {
  return {
    statementPart,
    async afterEvent(ctx: EmitContext, tx: Tx, event: EmittedEvent, answer): Promise<number> {
      let inserted = Number(answer.dlv_n ?? 0)
      let total = inserted
      // Rounds of IDS_PER_STATEMENT subscribers until one comes back short.
      for (let offset = IDS_PER_STATEMENT; inserted === IDS_PER_STATEMENT; offset += IDS_PER_STATEMENT) {
        const { rows } = await run<{ dlv_n: number }>(tx, db, MORE, partParams(ctx, event, offset))
        inserted = Number(rows[0]?.dlv_n ?? 0)
        total += inserted
      }
      return total
    },
  }
}
