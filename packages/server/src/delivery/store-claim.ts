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

/** The first `limit` pending deliveries of a webhook by due time, due or not (locked on PostgreSQL). */
export async function pendingOf(tx: Tx, db: Db, webhookId: string, limit: number): Promise<Job[]> {
  return (await run<Job>(tx, db, TEXTS[db.dialect].due, [webhookId, limit])).rows
}

/** Leases `ids` to `workerId` until `expiresAt`. */
export async function leaseDeliveries(
  tx: Tx,
  db: Db,
  ids: string[],
  lease: { workerId: string; expiresAt: number; now: number },
): Promise<void> {
  const sql = TEXTS[db.dialect]
  const params = [lease.workerId, lease.expiresAt, lease.now]
  // SQLite: a prepared statement per row beats walking a JSON list; PostgreSQL: one round trip.
  if (db.dialect === 'sqlite') for (const id of ids) await run(tx, db, sql.leaseOne, [...params, id])
  else if (ids.length > 0) await run(tx, db, sql.lease, [...params, listParam(db.dialect, ids)])
}

// The claim lock (platform/db/transactions.ts lockResource's, same key) and `synchronous_commit =
// off` for the round (commitWithoutFlushWait's reasoning) in one statement.
const CLAIM_LOCK = `select set_config('synchronous_commit', 'off', true) as sync,
  pg_advisory_xact_lock(hashtext('tessera.webhook-claim')) as locked`

/**
 * PostgreSQL: serialises claimers until commit and lets the round commit without waiting for its
 * WAL flush. SQLite: nothing to do (one writer at a time; commits are NORMAL already).
 */
export async function lockClaimsWithoutFlushWait(tx: Tx, db: Db): Promise<void> {
  if (db.dialect === 'postgres') await run(tx, db, CLAIM_LOCK, [])
}
