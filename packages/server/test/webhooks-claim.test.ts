// The claim of a worker's round (delivery/claim.ts, one statement per webhook on PostgreSQL), on
// every dialect: it leases only due deliveries, never more than the webhook's free slots (leases of
// every worker counted), and tells when the first delivery not yet due comes due, so the worker
// wakes then rather than at its next poll.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { recordAndClaim } from '../src/delivery/recording.ts'
import { emitEvent } from '../src/events/index.ts'
import { signedIn } from './support/api.ts'
import { dialects, startApp, type TestApp } from './support/harness.ts'
import { register } from './support/receiver.ts'

const MAX_IN_FLIGHT = 3

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

    const claim = (workerId: string) =>
      recordAndClaim({ db: t.db, workerId, config: t.config, leaseMs: 30_000 }, [], 10).then((r) => r.claimed)

    test('leases due deliveries within the free slots, then says when the next one comes due', async () => {
      const user = await signedIn(t.app)
      const hookId = await register(t.app, user.authToken, 'file_uploaded', 'http://127.0.0.1:9/claim')
      const fileId = 'fc0000000000000000000000'
      await t.db.kysely.transaction().execute(async (tx) => {
        for (let i = 0; i < 5; i++) {
          await emitEvent(t.app.ctx, tx, {
            event: 'file_uploaded',
            fileId,
            fileOwnerId: user.account.id,
            data: { i },
          })
        }
      })
      const queued = await t.db.kysely
        .selectFrom('deliveries')
        .select(['id', 'next_attempt_at'])
        .where('webhook_id', '=', hookId)
        .orderBy('id')
        .execute()
      assert.equal(queued.length, 5)
      // The last one is a retry due in a minute.
      const laterAt = Date.now() + 60_000
      const retry = queued[4]?.id ?? ''
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
        queued.slice(0, MAX_IN_FLIGHT).map((row) => row.id),
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
        [queued[3]?.id],
      )
      assert.equal(third.saturated, false)
      assert.equal(third.nextDueAt, laterAt)
      const leased = await t.db.kysely
        .selectFrom('deliveries')
        .select(['status', 'leased_by'])
        .where('id', 'in', [queued[3]?.id ?? '', retry])
        .orderBy('id')
        .execute()
      assert.deepEqual(leased, [
        { status: 'delivering', leased_by: 'worker-b' },
        { status: 'pending', leased_by: null },
      ])
    })
  })
}
