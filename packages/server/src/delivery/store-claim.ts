// SQL of the claim (claim.ts): which webhooks have pending deliveries, their due deliveries and
// expired leases, and taking the lease. Plain text, prepared once per dialect (platform/db/raw-sql.ts).
import type { Job } from '../events/index.ts'
import type { Db, Dialect, Tx } from '../platform/db/index.ts'
import { inList, listParam, lockRows, run } from '../platform/db/raw-sql.ts'

export interface HookRow {
  id: string | null
  next_at: number | null
  busy: number | null
  lease_next: number | null
}

// A loose scan of the (status, webhook_id, next_attempt_at) index: one probe per webhook with
// pending deliveries, however deep its backlog, with its earliest due time and live in-flight
// count; a last row (id null) tells when the first lease runs out.
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

const JOB_FIELDS = `d.id, d.uuid, d.attempts, d.owner_email, d.webhook_id, d.next_attempt_at, d.is_test,
  w.url, w.secret, w.service_token, w.previous_secret, w.previous_secret_expires_at,
  w.disabled as webhook_disabled, e.created_at as event_created_at, e.file_id, e.event, e.data,
  e.run_timestamp`
const JOB_COLUMNS = `${JOB_FIELDS}
from deliveries d join webhooks w on w.id = d.webhook_id join events e on e.id = d.event_id`

// PostgreSQL: takes the due deliveries of one webhook in the statement that reads them (one round
// trip where a select and an update took two), answering with each one when the first delivery not
// yet due is (`later`). The claim lock is held, so the rows cannot be taken by another claimer.
const PG_LEASE_DUE = `update deliveries d set status = 'delivering', leased_by = ?, lease_expires_at = ?,
    updated_at = ?
  from webhooks w, events e
  where d.id in (select p.id from deliveries p
      where p.status = 'pending' and p.webhook_id = ? and p.next_attempt_at <= ?
      order by p.next_attempt_at limit ? for update skip locked)
    and w.id = d.webhook_id and e.id = d.event_id
  returning ${JOB_FIELDS},
    (select min(x.next_attempt_at) from deliveries x
     where x.status = 'pending' and x.webhook_id = d.webhook_id and x.next_attempt_at > ?) as later`

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
    // SQLite: the first `limit` pending deliveries of one webhook, due or not: the first one not
    // yet due tells when to look again, without another query (PostgreSQL: PG_LEASE_DUE).
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

/** Every webhook with pending deliveries, and the row of the earliest lease expiry (id null). */
export async function webhooksWithPending(tx: Tx, db: Db, now: number): Promise<HookRow[]> {
  return (await run<HookRow>(tx, db, HOOKS, [now])).rows
}

/** Up to `limit` deliveries whose lease ran out, oldest expiry first (locked on PostgreSQL). */
export async function expiredLeases(tx: Tx, db: Db, now: number, limit: number): Promise<Job[]> {
  return (await run<Job>(tx, db, TEXTS[db.dialect].expired, [now, limit])).rows
}

/** Live leases of each of `webhookIds` that has any. */
export async function liveLeaseCounts(
  tx: Tx,
  db: Db,
  now: number,
  webhookIds: string[],
): Promise<Map<string, number>> {
  const { rows } = await run<{ webhook_id: string; n: number }>(tx, db, TEXTS[db.dialect].busy, [
    now,
    listParam(db.dialect, webhookIds),
  ])
  return new Map(rows.map((row) => [row.webhook_id, Number(row.n)]))
}

/** SQLite (leaseDue): the first `limit` pending deliveries of a webhook by due time, due or not. */
async function pendingOf(tx: Tx, db: Db, webhookId: string, limit: number): Promise<Job[]> {
  return (await run<Job>(tx, db, TEXTS[db.dialect].due, [webhookId, limit])).rows
}

export interface Lease {
  workerId: string
  expiresAt: number
  now: number
}

export interface DueTaken {
  /** Leased to the claimer, by due time. */
  jobs: Job[]
  /** When the webhook's first delivery not yet due is; null: none is (or it was not looked for). */
  later: number | null
}

/**
 * Leases up to `limit` due deliveries of `webhookId` (pendingOf and leaseDeliveries together; one
 * statement on PostgreSQL). The caller holds the claim lock.
 */
export async function leaseDue(
  tx: Tx,
  db: Db,
  webhookId: string,
  limit: number,
  lease: Lease,
): Promise<DueTaken> {
  const params = [lease.workerId, lease.expiresAt, lease.now]
  if (db.dialect === 'postgres') {
    const { rows } = await run<Job & { later: number | null }>(tx, db, PG_LEASE_DUE, [
      ...params,
      webhookId,
      lease.now,
      limit,
      lease.now,
    ])
    rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || (a.id < b.id ? -1 : 1))
    const later = rows[0]?.later
    return { jobs: rows.map(({ later: _, ...job }) => job), later: later == null ? null : Number(later) }
  }
  const pending = await pendingOf(tx, db, webhookId, limit)
  const due = pending.filter((job) => Number(job.next_attempt_at) <= lease.now)
  await leaseDeliveries(
    tx,
    db,
    due.map((job) => job.id),
    lease,
  )
  const later = pending[due.length]
  return { jobs: due, later: later === undefined ? null : Number(later.next_attempt_at) }
}

/** Leases `ids` to `workerId` until `expiresAt`. */
export async function leaseDeliveries(tx: Tx, db: Db, ids: string[], lease: Lease): Promise<void> {
  const sql = TEXTS[db.dialect]
  const params = [lease.workerId, lease.expiresAt, lease.now]
  // SQLite: a prepared statement per row beats walking a JSON list; PostgreSQL: one round trip.
  if (db.dialect === 'sqlite') for (const id of ids) await run(tx, db, sql.leaseOne, [...params, id])
  else if (ids.length > 0) await run(tx, db, sql.lease, [...params, listParam(db.dialect, ids)])
}

// What starts a worker's round on PostgreSQL, as columns of a select:
// - `synchronous_commit = off` for this transaction alone: its commit returns without waiting for
//   the WAL to reach disk. Only for writes whose loss in a database-server crash merely repeats work
//   that is safe to repeat (a delivery attempt recorded or claimed is at worst sent again, which
//   at-least-once delivery allows), never for anything a caller was told is saved. A crash of our own
//   process loses nothing: the commit is in the server. SQLite commits this way already (WAL,
//   synchronous = NORMAL).
// - for a round that claims, the claim lock (platform/db/transactions.ts lockResource's, same key),
//   held until commit.
// recordSuccesses adds them to the statement that records the results; startRound sends them alone.
const NO_FLUSH_WAIT = `set_config('synchronous_commit', 'off', true) as sync`
export const ROUND_START_COLUMNS = {
  recording: NO_FLUSH_WAIT,
  claiming: `${NO_FLUSH_WAIT}, pg_advisory_xact_lock(hashtext('tessera.webhook-claim')) as locked`,
}
const ROUND_START = {
  recording: `select ${ROUND_START_COLUMNS.recording}`,
  claiming: `select ${ROUND_START_COLUMNS.claiming}`,
}

/**
 * PostgreSQL: lets the round commit without waiting for its WAL flush and, when `claiming`,
 * serialises claimers until commit. SQLite: nothing to do (one writer at a time; commits are NORMAL
 * already).
 */
export async function startRound(tx: Tx, db: Db, claiming: boolean): Promise<void> {
  if (db.dialect === 'postgres') await run(tx, db, ROUND_START[claiming ? 'claiming' : 'recording'], [])
}
