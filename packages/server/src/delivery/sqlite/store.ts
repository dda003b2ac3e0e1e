// SQLite's delivery store. SQLite runs statements on this thread without round trips: a prepared
// statement per row costs less there than building a JSON list and walking it (json_each), so the
// engine writes row by row; one writer at a time, so no claim lock, and commits are NORMAL already.
import type { Db, Tx } from '../../platform/db/index.ts'
import { run } from '../../platform/db/raw-sql.ts'
import type { Job } from '../hand-off-port.ts'
import type { AttemptRow, DeliveryStore, HealthRow, Lease, Successes } from '../store.ts'
import { ATTEMPT_COLUMNS, HELD, JOB_COLUMNS, LEASE_SET, SUCCEED, sharedStatements } from '../store-texts.ts'
import { sqliteFanOut } from './fan-out.ts'

// The first `limit` pending deliveries of one webhook, due or not: the first one not yet due tells
// when to look again, without another query.
const PENDING_OF = `select ${JOB_COLUMNS}
  where d.status = 'pending' and d.webhook_id = ? order by d.next_attempt_at limit ?`
// Leases whose holder died (or never recorded the result) in time.
const EXPIRED = `select ${JOB_COLUMNS}
  where d.status = 'delivering' and d.lease_expires_at <= ? order by d.lease_expires_at limit ?`
const BUSY = `select webhook_id, count(*) as n from deliveries
  where status = 'delivering' and lease_expires_at > ? and webhook_id in (select value from json_each(?))
  group by webhook_id`
const LEASE_ONE = `${LEASE_SET} where id = ?`
const ATTEMPT = `insert into delivery_attempts (${ATTEMPT_COLUMNS.join(', ')})
  values (${ATTEMPT_COLUMNS.map(() => '?').join(', ')})`
const SUCCEED_ONE = `${SUCCEED} where id = ? and ${HELD}`
const HEALTHY_ONE = 'update webhooks set failing_since = null where id = ? and failing_since is not null'
const HEALTH = `select id, disabled, failing_since from webhooks
  where id in (select value from json_each(?))`

export function openSqliteDelivery(db: Db): DeliveryStore {
  const leaseDeliveries = async (tx: Tx, ids: string[], lease: Lease): Promise<void> => {
    for (const id of ids) await run(tx, db, LEASE_ONE, [lease.workerId, lease.expiresAt, lease.now, id])
  }
  const insertAttempts = async (tx: Tx, rows: AttemptRow[]): Promise<void> => {
    for (const row of rows) {
      await run(
        tx,
        db,
        ATTEMPT,
        ATTEMPT_COLUMNS.map((column) => row[column]),
      )
    }
  }
  const markSucceeded = async (tx: Tx, ids: string[], workerId: string, now: number) => {
    const settled = new Set<string>()
    for (const id of ids) {
      const { affected } = await run(tx, db, SUCCEED_ONE, [now, now, now, id, workerId])
      if (affected > 0) settled.add(id)
    }
    return settled
  }
  return {
    fanOut: sqliteFanOut(db),
    ...sharedStatements(db, EXPIRED),
    async liveLeaseCounts(tx, now, webhookIds) {
      const list = JSON.stringify(webhookIds)
      const { rows } = await run<{ webhook_id: string; n: number }>(tx, db, BUSY, [now, list])
      return new Map(rows.map((row) => [row.webhook_id, Number(row.n)]))
    },
    async leaseDue(tx, webhookId, limit, lease) {
      const pending = (await run<Job>(tx, db, PENDING_OF, [webhookId, limit])).rows
      const due = pending.filter((job) => Number(job.next_attempt_at) <= lease.now)
      await leaseDeliveries(
        tx,
        due.map((job) => job.id),
        lease,
      )
      const later = pending[due.length]
      return { jobs: due, later: later === undefined ? null : Number(later.next_attempt_at) }
    },
    leaseDeliveries,
    async startRound() {},
    insertAttempts,
    markSucceeded,
    async recordSuccesses(tx, batch: Successes) {
      await insertAttempts(tx, batch.rows)
      const settled = await markSucceeded(tx, batch.ids, batch.workerId, batch.now)
      for (const id of batch.hookIds) await run(tx, db, HEALTHY_ONE, [id])
      return settled
    },
    async readHealth(tx, ids) {
      return (await run<HealthRow>(tx, db, HEALTH, [JSON.stringify(ids)])).rows
    },
  }
}
