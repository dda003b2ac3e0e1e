// SQLite's fan-out (events/subscribers.ts): in the emitting transaction, one delivery per webhook of
// the event's readers, row by row; a delivery an in-process worker can take is written already leased
// to it and handed over at commit (hand-off-port.ts), so it goes out without a claim round.
import { randomUUID } from 'node:crypto'
import type { EmitContext, EmitHook, EmittedEvent } from '../../events/index.ts'
import type { Db, Tx } from '../../platform/db/index.ts'
import { run } from '../../platform/db/raw-sql.ts'
import { newId } from '../../platform/ids.ts'
import { type DeliveryHandOff, handOffPortOf, type Job } from '../hand-off-port.ts'
import { wakeWorkers } from '../wake.ts'

// Who may read the file decides who hears about it; nobody else's webhooks see the event. With
// each subscriber, what a hand-off needs: its live leases (all processes: SQLite writers take turns,
// so the count holds until commit) and whether older deliveries already wait for it. Most files
// have one reader, their owner: that case compares with `=` instead of walking a JSON list.
const subscribers = (readers: string) => `select w.id, w.disabled, a.email, w.url, w.secret,
    w.service_token, w.previous_secret, w.previous_secret_expires_at,
    (select count(*) from deliveries d
     where d.status = 'delivering' and d.webhook_id = w.id and d.lease_expires_at > ?) as leases,
    exists (select 1 from deliveries d
     where d.status = 'pending' and d.webhook_id = w.id and d.next_attempt_at <= ?) as queued
  from webhooks w join accounts a on a.id = w.owner_id
  where w.event = ? and ${readers} and a.disabled = 0`
const SUBSCRIBERS_OF_ONE = subscribers('w.owner_id = ?')
const SUBSCRIBERS = subscribers('w.owner_id in (select value from json_each(?))')

const DELIVERY_INSERT = `insert into deliveries (id, uuid, event_id, webhook_id, owner_email, status,
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

/** The job a hand-off sends, from the rows just written. */
function handedJob(id: string, uuid: string, hook: Subscriber, event: EmittedEvent, dueAt: number): Job {
  return {
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
    event_created_at: event.createdAt,
    file_id: event.fileId,
    event: event.event,
    data: event.data,
    run_timestamp: event.runTimestamp,
  }
}

export function sqliteFanOut(db: Db): EmitHook {
  /** The webhooks of `event` owned by one of its readers (enabled accounts only), as of `now`. */
  const subscribersOf = async (tx: Tx, event: EmittedEvent, now: number) => {
    const { readers } = event
    const { rows } =
      readers.length === 1
        ? await run<Subscriber>(tx, db, SUBSCRIBERS_OF_ONE, [now, now, event.event, readers[0]])
        : await run<Subscriber>(tx, db, SUBSCRIBERS, [now, now, event.event, JSON.stringify(readers)])
    return rows
  }
  return {
    async afterEvent(ctx: EmitContext, tx: Tx, event: EmittedEvent): Promise<number> {
      const now = event.createdAt
      const dueAt = now + (ctx.config.webhookRetryScheduleMs[0] ?? 0)
      const hooks = await subscribersOf(tx, event, now)
      const handOff: DeliveryHandOff | null = handOffPortOf(ctx)?.takerFor(db) ?? null
      const handed: Job[] = []
      let pending = 0
      for (const hook of hooks) {
        const id = newId(now)
        const uuid = randomUUID()
        let status = hook.disabled === 1 ? 'paused' : 'pending'
        let lease: [string | null, number | null] = [null, null]
        if (status === 'pending' && hook.queued === 0 && handOff?.canTake(hook.id, hook.leases)) {
          status = 'delivering'
          lease = [handOff.id, now + handOff.leaseMs]
          handOff.reserve()
          handed.push(handedJob(id, uuid, hook, event, dueAt))
        } else if (status === 'pending') pending += 1
        const row = [id, uuid, event.id, hook.id, hook.email, status, dueAt, now, now, ...lease]
        await run(tx, db, DELIVERY_INSERT, row)
      }
      if (handOff && handed.length > 0) {
        const whenEnds = db.whenTransactionEnds
        if (!whenEnds) throw new Error('a hand-off needs Db.whenTransactionEnds')
        whenEnds((committed) => handOff.settle(handed, committed))
      }
      // The worker's claim queues behind this transaction (one connection), so it sees the outcome.
      if (pending > 0) await wakeWorkers(db, tx)
      return hooks.length
    },
  }
}
