// SQL texts both databases' delivery stores (sqlite/store.ts, postgres/store.ts) run as they are:
// the claim's listing of webhooks, a job's columns, recording an attempt. Plain text, prepared once
// (platform/db/raw-sql.ts).
import type { Db } from '../platform/db/index.ts'
import { run } from '../platform/db/raw-sql.ts'
import type { Job } from './hand-off-port.ts'
import type { AttemptRow, DeliveryStore, HookRow } from './store.ts'

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

/** A Job's columns (hand-off-port.ts), of `deliveries d`, `webhooks w` and `events e`. */
export const JOB_FIELDS = `d.id, d.uuid, d.attempts, d.owner_email, d.webhook_id, d.next_attempt_at, d.is_test,
  w.url, w.secret, w.service_token, w.previous_secret, w.previous_secret_expires_at,
  w.disabled as webhook_disabled, e.created_at as event_created_at, e.file_id, e.event, e.data,
  e.run_timestamp`
export const JOB_COLUMNS = `${JOB_FIELDS}
from deliveries d join webhooks w on w.id = d.webhook_id join events e on e.id = d.event_id`

/** Leases deliveries: parameters holder, expiry, now (then the rows' condition). */
export const LEASE_SET = `update deliveries set status = 'delivering', leased_by = ?, lease_expires_at = ?,
    updated_at = ?`

/** delivery_attempts' columns, in the order of the table. */
export const ATTEMPT_COLUMNS = [
  'id',
  'delivery_id',
  'attempt',
  'started_at',
  'duration_ms',
  'status_code',
  'error_code',
  'error_message',
  'response_excerpt',
] as const satisfies ReadonlyArray<keyof AttemptRow>

/** The condition on a delivery the recording worker still holds: parameter the worker. */
export const HELD = `leased_by = ? and status = 'delivering'`

/** A success (always a 200: attempt.ts, judge): parameters now × 3, then the rows' condition. */
export const SUCCEED = `update deliveries set status = 'succeeded', attempts = attempts + 1, next_attempt_at = ?,
    leased_by = null, lease_expires_at = null, last_status_code = 200, last_error_code = null,
    updated_at = ?, completed_at = ?`

const SETTLE = `update deliveries set status = ?, attempts = attempts + 1, next_attempt_at = ?,
    leased_by = null, lease_expires_at = null, last_status_code = ?, last_error_code = ?,
    updated_at = ?, completed_at = ?
  where id = ? and ${HELD}`

const FAILING = 'update webhooks set failing_since = ? where id = ?'

/** What both stores run alike: the same texts, and expired leases by the database's `expired`. */
export function sharedStatements(
  db: Db,
  expired: string,
): Pick<DeliveryStore, 'webhooksWithPending' | 'expiredLeases' | 'settleDelivery' | 'setFailingSince'> {
  return {
    async webhooksWithPending(tx, now) {
      return (await run<HookRow>(tx, db, HOOKS, [now])).rows
    },
    async expiredLeases(tx, now, limit) {
      return (await run<Job>(tx, db, expired, [now, limit])).rows
    },
    async settleDelivery(tx, id, workerId, settlement, now) {
      const { status, nextAt, statusCode, errorCode, completedAt } = settlement
      const params = [status, nextAt, statusCode, errorCode, now, completedAt, id, workerId]
      return (await run(tx, db, SETTLE, params)).affected > 0
    },
    async setFailingSince(tx, id, since) {
      await run(tx, db, FAILING, [since, id])
    },
  }
}
