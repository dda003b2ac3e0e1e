// Claiming due deliveries, webhook by webhook, never more than a webhook's free in-flight slots.
//
// The old claim walked the global due index and skipped saturated webhooks row by row, so a deep
// backlog behind one saturated webhook cost a scan of that backlog per claimed delivery. Here one
// statement lists the webhooks that have pending deliveries (a loose scan of the (status,
// webhook_id, next_attempt_at) index: one probe per webhook, however deep its backlog) with their
// earliest due time and live in-flight count; then each webhook with free slots gets one indexed
// query limited to those slots. The same listing tells the worker when to look again.
import type { Db, Dialect, Tx } from '../../platform/db/index.ts'
import { inList, listParam, lockRows, run } from './statements.ts'

export interface Job {
  id: string
  uuid: string
  attempts: number
  owner_email: string
  webhook_id: string
  next_attempt_at: number
  url: string
  secret: string
  service_token: string
  previous_secret: string | null
  previous_secret_expires_at: number | null
  webhook_disabled: number
  /** A test delivery: sent with `x-service-test: 1`, even while disabled, never touching health. */
  is_test: number
  event_created_at: number
  file_id: string
  event: string
  data: string
  run_timestamp: number
}

export interface ClaimOptions {
  db: Db
  workerId: string
  /** Most deliveries to claim in this round. */
  limit: number
  /** TESSERA_WEBHOOK_MAX_IN_FLIGHT: live leases per webhook, all processes together. */
  maxPerHook: number
  leaseMs: number
}

export interface Claimed {
  jobs: Job[]
  /** The limit cut the round short: due deliveries with free slots are left. */
  more: boolean
  /** Due deliveries were left for want of free slots of their webhook. */
  saturated: boolean
  /**
   * When something not claimable now becomes due (a retry, an expiring lease); null when nothing
   * is scheduled. Deliveries waiting for a slot of a saturated webhook are not counted: a finishing
   * attempt wakes the worker for them (and the poll covers slots held by other processes).
   */
  nextDueAt: number | null
}

interface HookRow {
  id: string | null
  next_at: number | null
  busy: number | null
  lease_next: number | null
}

const HOOKS = `with recursive hooks(id) as (
  select (select webhook_id from deliveries where status = 'pending' order by webhook_id limit 1)
  union all
  select (select d.webhook_id from deliveries d
          where d.status = 'pending' and d.webhook_id > hooks.id order by d.webhook_id limit 1)
  from hooks where hooks.id is not null
)
select hooks.id as id,
  (select min(d.next_attempt_at) from deliveries d
   where d.status = 'pending' and d.webhook_id = hooks.id) as next_at,
  (select count(*) from deliveries d
   where d.status = 'delivering' and d.webhook_id = hooks.id and d.lease_expires_at > ?) as busy,
  null as lease_next
from hooks where hooks.id is not null
union all
select null, null, null, (select min(lease_expires_at) from deliveries where status = 'delivering')`

const JOB_COLUMNS = `d.id, d.uuid, d.attempts, d.owner_email, d.webhook_id, d.next_attempt_at, d.is_test,
  w.url, w.secret, w.service_token, w.previous_secret, w.previous_secret_expires_at,
  w.disabled as webhook_disabled, e.created_at as event_created_at, e.file_id, e.event, e.data,
  e.run_timestamp
from deliveries d join webhooks w on w.id = d.webhook_id join events e on e.id = d.event_id`

interface Texts {
  due: string
  expired: string
  busy: string
  lease: string
  /** SQLite: one delivery of `lease`. */
  leaseOne: string
}

function texts(dialect: Dialect): Texts {
  const leaseSet = `update deliveries set status = 'delivering', leased_by = ?, lease_expires_at = ?,
      updated_at = ?`
  return {
    // The first `limit` pending deliveries of one webhook, due or not: the first one not yet due
    // tells when to look again, without another query.
    due: `select ${JOB_COLUMNS}
      where d.status = 'pending' and d.webhook_id = ? order by d.next_attempt_at limit ?${lockRows(dialect)}`,
    // Leases whose holder died (or never recorded the result) in time.
    expired: `select ${JOB_COLUMNS}
      where d.status = 'delivering' and d.lease_expires_at <= ?
      order by d.lease_expires_at limit ?${lockRows(dialect)}`,
    busy: `select webhook_id, count(*) as n from deliveries
      where status = 'delivering' and lease_expires_at > ? and ${inList(dialect, 'webhook_id')}
      group by webhook_id`,
    lease: `${leaseSet} where ${inList(dialect, 'id')}`,
    leaseOne: `${leaseSet} where id = ?`,
  }
}

const TEXTS: Record<Dialect, Texts> = { sqlite: texts('sqlite'), postgres: texts('postgres') }

/**
 * Claims up to `limit` due deliveries in `tx`. On PostgreSQL the caller holds the claim lock, so the
 * in-flight counts read here cannot change under us before commit.
 */
export async function claimDue(tx: Tx, options: ClaimOptions): Promise<Claimed> {
  const { db, limit, maxPerHook } = options
  const { dialect } = db
  const sql = TEXTS[dialect]
  const now = Date.now()
  const { rows } = await run<HookRow>(tx, db, HOOKS, [now])
  const busy = new Map<string, number>()
  const hooks: Array<{ id: string; nextAt: number }> = []
  let leaseNext: number | null = null
  for (const row of rows) {
    if (row.id === null) leaseNext = row.lease_next === null ? null : Number(row.lease_next)
    else {
      busy.set(row.id, Number(row.busy))
      hooks.push({ id: row.id, nextAt: Number(row.next_at) })
    }
  }
  const jobs: Job[] = []
  let blocked = false
  let saturated = false
  const candidates: number[] = []

  if (leaseNext !== null && leaseNext <= now) {
    const expired = (await run<Job>(tx, db, sql.expired, [now, limit * 4])).rows
    const unknown = [...new Set(expired.map((j) => j.webhook_id))].filter((id) => !busy.has(id))
    if (unknown.length > 0) {
      const counts = await run<{ webhook_id: string; n: number }>(tx, db, sql.busy, [
        now,
        listParam(dialect, unknown),
      ])
      for (const id of unknown) busy.set(id, 0)
      for (const c of counts.rows) busy.set(c.webhook_id, Number(c.n))
    }
    for (const job of expired) {
      const n = busy.get(job.webhook_id) ?? 0
      if (n >= maxPerHook || jobs.length >= limit) {
        if (n >= maxPerHook) saturated = true
        else blocked = true
        continue
      }
      busy.set(job.webhook_id, n + 1)
      jobs.push(job)
    }
  } else if (leaseNext !== null) candidates.push(leaseNext)

  // Longest-waiting webhooks first, so a busy one cannot starve the others of the round's budget.
  hooks.sort((a, b) => a.nextAt - b.nextAt)
  for (const hook of hooks) {
    if (hook.nextAt > now) {
      candidates.push(hook.nextAt)
      continue
    }
    const free = maxPerHook - (busy.get(hook.id) ?? 0)
    if (free <= 0) {
      saturated = true
      continue
    }
    const budget = limit - jobs.length
    if (budget <= 0) {
      blocked = true
      continue
    }
    const take = Math.min(free, budget)
    const pending = (await run<Job>(tx, db, sql.due, [hook.id, take])).rows
    for (const job of pending) {
      if (Number(job.next_attempt_at) <= now) jobs.push(job)
      else {
        candidates.push(Number(job.next_attempt_at))
        break
      }
    }
    // All taken were due, so more may be: the round's budget or the webhook's slots ran out.
    if (pending.length === take && Number(pending[take - 1]?.next_attempt_at) <= now) {
      if (take < free) blocked = true
      else saturated = true
    }
  }

  const lease = [options.workerId, now + options.leaseMs, now]
  // SQLite: a prepared statement per row beats walking a JSON list; PostgreSQL: one round trip.
  if (dialect === 'sqlite') for (const job of jobs) await run(tx, db, sql.leaseOne, [...lease, job.id])
  else if (jobs.length > 0) {
    await run(tx, db, sql.lease, [
      ...lease,
      listParam(
        dialect,
        jobs.map((j) => j.id),
      ),
    ])
  }
  return {
    jobs,
    more: blocked && jobs.length >= limit,
    saturated,
    nextDueAt: candidates.length === 0 ? null : Math.min(...candidates),
  }
}
