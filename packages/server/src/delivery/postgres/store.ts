// PostgreSQL's delivery store: every list travels as one array parameter and a batch takes one
// statement (one round trip); claimers serialise on an advisory lock held until commit, and due
// rows are taken `for update skip locked`.
import type { Db, Tx } from '../../platform/db/index.ts'
import { run } from '../../platform/db/raw-sql.ts'
import type { Job } from '../hand-off-port.ts'
import type { AttemptRow, DeliveryStore, HealthRow, Lease } from '../store.ts'
import { HELD, JOB_COLUMNS, JOB_FIELDS, LEASE_SET, SUCCEED, sharedStatements } from '../store-texts.ts'
import { postgresFanOut } from './fan-out.ts'

// Takes the due deliveries of one webhook in the statement that reads them (one round trip where a
// select and an update took two), answering with each one when the first delivery not yet due is
// (`later`). The claim lock is held, so the rows cannot be taken by another claimer.
const LEASE_DUE = `update deliveries d set status = 'delivering', leased_by = ?, lease_expires_at = ?,
    updated_at = ?
  from webhooks w, events e
  where d.id in (select p.id from deliveries p
      where p.status = 'pending' and p.webhook_id = ? and p.next_attempt_at <= ?
      order by p.next_attempt_at limit ? for update skip locked)
    and w.id = d.webhook_id and e.id = d.event_id
  returning ${JOB_FIELDS},
    (select min(x.next_attempt_at) from deliveries x
     where x.status = 'pending' and x.webhook_id = d.webhook_id and x.next_attempt_at > ?) as later`
// Leases whose holder died (or never recorded the result) in time.
const EXPIRED = `select ${JOB_COLUMNS}
  where d.status = 'delivering' and d.lease_expires_at <= ?
  order by d.lease_expires_at limit ? for update of d skip locked`
const BUSY = `select webhook_id, count(*) as n from deliveries
  where status = 'delivering' and lease_expires_at > ? and webhook_id = any(?::text[])
  group by webhook_id`
const LEASE = `${LEASE_SET} where id = any(?::text[])`
const ATTEMPTS =
  'insert into delivery_attempts select * from json_populate_recordset(null::delivery_attempts, ?::json)'
const SUCCEEDED = `${SUCCEED} where id = any(?::text[]) and ${HELD} returning id`
const HEALTHY = `update webhooks set failing_since = null
  where id = any(?::text[]) and failing_since is not null`
const HEALTH = 'select id, disabled, failing_since from webhooks where id = any(?::text[])'

// What starts a worker's round, as columns of a select:
// - `synchronous_commit = off` for this transaction alone: its commit returns without waiting for
//   the WAL to reach disk. Only for writes whose loss in a database-server crash merely repeats work
//   that is safe to repeat (a delivery attempt recorded or claimed is at worst sent again, which
//   at-least-once delivery allows), never for anything a caller was told is saved. A crash of our own
//   process loses nothing: the commit is in the server. SQLite commits this way already (WAL,
//   synchronous = NORMAL).
// - for a round that claims, the claim lock (platform/db/transactions.ts lockResource's, same key),
//   held until commit.
// SUCCESSES adds them to the statement that records the results; startRound sends them alone.
const NO_FLUSH_WAIT = `set_config('synchronous_commit', 'off', true) as sync`
const ROUND_START_COLUMNS = {
  recording: NO_FLUSH_WAIT,
  claiming: `${NO_FLUSH_WAIT}, pg_advisory_xact_lock(hashtext('tessera.webhook-claim')) as locked`,
}
const ROUND_START = {
  recording: `select ${ROUND_START_COLUMNS.recording}`,
  claiming: `select ${ROUND_START_COLUMNS.claiming}`,
}
// A batch of successes in one statement (the attempt rows, the deliveries, the webhooks' health),
// which also starts the worker's round: one round trip where it took four.
const successes = (claiming: boolean) => `with attempts as (${ATTEMPTS}),
    settled as (${SUCCEEDED}),
    healthy as (${HEALTHY})
  select array(select id from settled) as settled, ${ROUND_START_COLUMNS[claiming ? 'claiming' : 'recording']}`
const SUCCESSES = { claiming: successes(true), recording: successes(false) }

export function openPostgresDelivery(db: Db): DeliveryStore {
  return {
    fanOut: postgresFanOut(db),
    ...sharedStatements(db, EXPIRED),
    async liveLeaseCounts(tx, now, webhookIds) {
      const { rows } = await run<{ webhook_id: string; n: number }>(tx, db, BUSY, [now, webhookIds])
      return new Map(rows.map((row) => [row.webhook_id, Number(row.n)]))
    },
    async leaseDue(tx, webhookId, limit, lease) {
      const params = [lease.workerId, lease.expiresAt, lease.now, webhookId, lease.now, limit, lease.now]
      const { rows } = await run<Job & { later: number | null }>(tx, db, LEASE_DUE, params)
      rows.sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || (a.id < b.id ? -1 : 1))
      const later = rows[0]?.later
      return { jobs: rows.map(({ later: _, ...job }) => job), later: later == null ? null : Number(later) }
    },
    async leaseDeliveries(tx: Tx, ids: string[], lease: Lease) {
      if (ids.length > 0) await run(tx, db, LEASE, [lease.workerId, lease.expiresAt, lease.now, ids])
    },
    async startRound(tx, claiming) {
      await run(tx, db, ROUND_START[claiming ? 'claiming' : 'recording'], [])
    },
    async recordSuccesses(tx, batch) {
      const { now } = batch
      const params = [JSON.stringify(batch.rows), now, now, now, batch.ids, batch.workerId, batch.hookIds]
      const text = SUCCESSES[batch.claiming ? 'claiming' : 'recording']
      const { rows } = await run<{ settled: string[] }>(tx, db, text, params)
      return new Set(rows[0]?.settled ?? [])
    },
    async insertAttempts(tx, rows: AttemptRow[]) {
      await run(tx, db, ATTEMPTS, [JSON.stringify(rows)])
    },
    async markSucceeded(tx, ids, workerId, now) {
      const settled = new Set<string>()
      if (ids.length === 0) return settled
      const { rows } = await run<{ id: string }>(tx, db, SUCCEEDED, [now, now, now, ids, workerId])
      for (const row of rows) settled.add(row.id)
      return settled
    },
    async readHealth(tx, ids) {
      return (await run<HealthRow>(tx, db, HEALTH, [ids])).rows
    },
  }
}
