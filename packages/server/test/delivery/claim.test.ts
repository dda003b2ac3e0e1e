// A worker's round (delivery/recording.ts: claim.ts, record.ts, with the store of each database,
// delivery/sqlite|postgres/store.ts), on every dialect: the claim leases only due
// deliveries, never more than the webhook's free slots (leases of every worker counted), and tells
// when the first delivery not yet due comes due, so the worker wakes then rather than at its next
// poll; the successes it records free their slots for the same round's claim; a lease that ran out
// is taken over.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AttemptResult } from '../../src/delivery/attempt.ts'
import type { Job } from '../../src/delivery/index.ts'
import { recordAndClaim } from '../../src/delivery/recording.ts'
import { emitEvent } from '../../src/events/index.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { register } from '../support/receiver.ts'

const MAX_IN_FLIGHT = 3
const FILE_ID = 'fc0000000000000000000000'
const SUCCESS: AttemptResult = {
  ok: true,
  status: 200,
  durationMs: 3,
  errorCode: null,
  errorMessage: null,
  responseExcerpt: '{"success":true}',
  retryAfterMs: null,
  gone: false,
}

for (const dialect of dialects()) {
  describe(`claiming deliveries on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      // No worker: the test claims itself.
      t = await startApp(dialect, { webhookMaxInFlight: MAX_IN_FLIGHT }, { workers: false })
    })
    after(async () => {
      await t.close()
    })

    const round = (workerId: string, finished: Job[] = []) => {
      const batch = finished.map((job) => ({ job, started: Date.now(), result: SUCCESS }))
      return recordAndClaim({ db: t.db, workerId, config: t.config, leaseMs: 30_000 }, batch, 10)
    }
    const claim = (workerId: string) => round(workerId).then((r) => r.claimed)

    /** `n` deliveries of one event each to a new webhook of a new account; answers their ids. */
    async function queue(n: number): Promise<{ hookId: string; ids: string[] }> {
      const user = await signedIn(t.app)
      const hookId = await register(t.app, user.authToken, 'file_uploaded', 'http://127.0.0.1:9/claim')
      await t.db.kysely.transaction().execute(async (tx) => {
        for (let i = 0; i < n; i++) {
          await emitEvent(t.app.ctx, tx, {
            event: 'file_uploaded',
            fileId: FILE_ID,
            fileOwnerId: user.account.id,
            data: { i },
          })
        }
      })
      const rows = await t.db.kysely
        .selectFrom('deliveries')
        .select('id')
        .where('webhook_id', '=', hookId)
        .orderBy('id')
        .execute()
      return { hookId, ids: rows.map((row) => row.id) }
    }

    test('leases due deliveries within the free slots, then says when the next one comes due', async () => {
      const { hookId, ids: queued } = await queue(5)
      assert.equal(queued.length, 5)
      // The last one is a retry due in a minute.
      const laterAt = Date.now() + 60_000
      const retry = queued[4] ?? ''
      await t.db.kysely
        .updateTable('deliveries')
        .set({ next_attempt_at: laterAt })
        .where('id', '=', retry)
        .execute()

      const first = await claim('worker-a')
      assert.equal(first.jobs.length, MAX_IN_FLIGHT)
      assert.ok(first.saturated, 'a due delivery was left for want of slots')
      assert.deepEqual(
        first.jobs.map((job) => job.id),
        queued.slice(0, MAX_IN_FLIGHT),
        'oldest due first',
      )
      const job = first.jobs[0]
      assert.equal(job?.webhook_id, hookId)
      assert.equal(job?.event, 'file_uploaded')
      assert.equal(JSON.parse(job?.data ?? '{}').i, 0)
      assert.ok(job?.url.endsWith('/claim'))

      // Another worker finds every slot taken.
      const second = await claim('worker-b')
      assert.deepEqual(second.jobs, [])
      assert.ok(second.saturated)

      // The slots free up: the last due one is taken, and the retry is what comes next.
      await t.db.kysely
        .updateTable('deliveries')
        .set({ status: 'succeeded', leased_by: null, lease_expires_at: null })
        .where('leased_by', '=', 'worker-a')
        .execute()
      const third = await claim('worker-b')
      assert.deepEqual(
        third.jobs.map((j) => j.id),
        [queued[3]],
      )
      assert.equal(third.saturated, false)
      assert.equal(third.nextDueAt, laterAt)
      const leased = await t.db.kysely
        .selectFrom('deliveries')
        .select(['status', 'leased_by'])
        .where('id', 'in', [queued[3] ?? '', retry])
        .orderBy('id')
        .execute()
      assert.deepEqual(leased, [
        { status: 'delivering', leased_by: 'worker-b' },
        { status: 'pending', leased_by: null },
      ])
    })

    test('a round records its successes first, and their slots are claimed in the same round', async () => {
      const { hookId, ids } = await queue(5)
      await t.db.kysely.updateTable('webhooks').set({ failing_since: 1 }).where('id', '=', hookId).execute()
      const first = await round('worker-c')
      assert.equal(first.claimed.jobs.length, MAX_IN_FLIGHT)
      const [a, b, c] = first.claimed.jobs as [Job, Job, Job]
      // b's lease is lost meanwhile (taken over by another worker): its success is not recorded.
      await t.db.kysely
        .updateTable('deliveries')
        .set({ leased_by: 'worker-x' })
        .where('id', '=', b.id)
        .execute()
      const second = await round('worker-c', [a, b, c])
      assert.deepEqual(
        second.recorded.map((r) => r.status),
        ['succeeded', null, 'succeeded'],
      )
      // a's and c's slots freed: the two left are claimed at once (b still holds one).
      assert.deepEqual(
        second.claimed.jobs.map((job) => job.id),
        ids.slice(3),
      )
      const attempts = await t.db.kysely
        .selectFrom('delivery_attempts')
        .select(['delivery_id', 'attempt', 'status_code', 'response_excerpt'])
        .where('delivery_id', 'in', [a.id, b.id, c.id])
        .orderBy('delivery_id')
        .execute()
      // Every attempt is in the log, the one whose lease was lost too (it was made).
      assert.deepEqual(
        attempts.map((row) => [row.delivery_id, row.attempt, row.status_code, row.response_excerpt]),
        [a, b, c].map((job) => [job.id, 1, 200, '{"success":true}']),
      )
      const hook = await t.db.kysely
        .selectFrom('webhooks')
        .select('failing_since')
        .where('id', '=', hookId)
        .executeTakeFirstOrThrow()
      assert.equal(hook.failing_since, null, 'a success clears failing_since')
      const settled = await t.db.kysely
        .selectFrom('deliveries')
        .select(['status', 'attempts', 'leased_by'])
        .where('id', '=', a.id)
        .executeTakeFirstOrThrow()
      assert.deepEqual(settled, { status: 'succeeded', attempts: 1, leased_by: null })
    })

    test('a lease that ran out is taken over by the next round', async () => {
      const { ids } = await queue(1)
      const first = await claim('worker-d')
      assert.deepEqual(
        first.jobs.map((job) => job.id),
        ids,
      )
      // worker-d died: its lease runs out.
      await t.db.kysely
        .updateTable('deliveries')
        .set({ lease_expires_at: Date.now() - 1 })
        .where('id', '=', ids[0] ?? '')
        .execute()
      const second = await claim('worker-e')
      assert.deepEqual(
        second.jobs.map((job) => job.id),
        ids,
      )
      const row = await t.db.kysely
        .selectFrom('deliveries')
        .select(['status', 'leased_by'])
        .where('id', '=', ids[0] ?? '')
        .executeTakeFirstOrThrow()
      assert.deepEqual(row, { status: 'delivering', leased_by: 'worker-e' })
    })
  })
}
