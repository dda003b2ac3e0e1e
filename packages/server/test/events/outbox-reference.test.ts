// The emit fast paths (events/sqlite|postgres/outbox-store.ts with delivery/sqlite|postgres/fan-out.ts:
// row by row on SQLite, one statement per event on PostgreSQL, with further statements past four
// webhooks) against a reference computed the plain way: for every event, one `event_stream` row per
// enabled reader, and one delivery per webhook of the event owned by an enabled reader, paused where
// the webhook is disabled. Readers, disabled webhooks, a disabled account, other events' webhooks and
// more webhooks than one PostgreSQL statement takes are all in the mix.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { EventName } from '../../src/contract/index.ts'
import type { AttemptResult } from '../../src/delivery/attempt.ts'
import { recordAndClaim } from '../../src/delivery/recording.ts'
import { emitEvent } from '../../src/events/index.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { register } from '../support/receiver.ts'

const FILE_ID = 'fd0000000000000000000000'
const SUCCESS: AttemptResult = {
  ok: true,
  status: 200,
  durationMs: 7,
  errorCode: null,
  errorMessage: null,
  responseExcerpt: '{"success":true}',
  retryAfterMs: null,
  gone: false,
}
const RETRY_FIRST_MS = 1500

interface Emit {
  event: EventName
  owner: string
  readers: string[]
}

for (const dialect of dialects()) {
  describe(`emitting events on ${dialect.name}, against a reference`, () => {
    let t: TestApp
    before(async () => {
      // No worker: nothing is handed over or claimed, so every delivery stays as written.
      t = await startApp(dialect, { webhookRetryScheduleMs: [RETRY_FIRST_MS, 5000] }, { workers: false })
    })
    after(async () => {
      await t.close()
    })

    /** A new account with `n` webhooks of `event`; answers the account's id. */
    async function accountWithHooks(n: number, event: EventName): Promise<string> {
      const user = await signedIn(t.app)
      for (let i = 0; i < n; i++) {
        await register(t.app, user.authToken, event, `http://127.0.0.1:9/${event}/${i}`)
      }
      return user.account.id
    }

    /** The rows the emits should have written, computed from the tables as they stand. */
    async function reference(emitted: Array<Emit & { eventId: string; at: number }>) {
      const hooks = await t.db.kysely
        .selectFrom('webhooks')
        .innerJoin('accounts', 'accounts.id', 'webhooks.owner_id')
        .select(['webhooks.id', 'webhooks.event', 'webhooks.owner_id', 'webhooks.disabled', 'accounts.email'])
        .select('accounts.disabled as account_disabled')
        .execute()
      const accounts = await t.db.kysely.selectFrom('accounts').select(['id', 'disabled']).execute()
      const enabled = new Set(accounts.filter((a) => a.disabled === 0).map((a) => a.id))
      const deliveries: string[] = []
      const stream: string[] = []
      for (const e of emitted) {
        const readers = new Set([e.owner, ...e.readers])
        for (const reader of readers) if (enabled.has(reader)) stream.push(`${e.eventId} ${reader}`)
        for (const hook of hooks) {
          if (hook.event !== e.event || !readers.has(hook.owner_id) || hook.account_disabled !== 0) continue
          const status = hook.disabled === 1 ? 'paused' : 'pending'
          deliveries.push(`${e.eventId} ${hook.id} ${hook.email} ${status} 0 0 ${e.at + RETRY_FIRST_MS}`)
        }
      }
      return { deliveries: deliveries.sort(), stream: stream.sort() }
    }

    test('writes exactly the reference rows', async () => {
      const busy = await accountWithHooks(6, 'file_uploaded')
      const sharer = await accountWithHooks(2, 'file_uploaded')
      const gone = await accountWithHooks(1, 'file_uploaded')
      const other = await accountWithHooks(3, 'file_shared')
      const none = (await signedIn(t.app)).account.id
      await t.db.kysely
        .updateTable('webhooks')
        .set({ disabled: 1 })
        .where('id', '=', (eb) =>
          eb.selectFrom('webhooks').select('id').where('owner_id', '=', sharer).orderBy('id').limit(1),
        )
        .execute()
      await t.db.kysely.updateTable('accounts').set({ disabled: 1 }).where('id', '=', gone).execute()
      const emits: Emit[] = [
        { event: 'file_uploaded', owner: busy, readers: [] },
        { event: 'file_uploaded', owner: busy, readers: [sharer, gone, none] },
        { event: 'file_uploaded', owner: sharer, readers: [busy, sharer] },
        { event: 'file_uploaded', owner: none, readers: [] },
        { event: 'file_shared', owner: other, readers: [busy] },
        { event: 'file_shared', owner: busy, readers: [other, gone] },
        { event: 'file_uploaded', owner: gone, readers: [] },
      ]
      const emitted: Array<Emit & { eventId: string; at: number }> = []
      let counted = 0
      for (const e of emits) {
        await t.db.kysely.transaction().execute(async (tx) => {
          // Two events in one transaction, as a route emitting twice would.
          for (let i = 0; i < 2; i++) {
            const out = await emitEvent(t.app.ctx, tx, {
              event: e.event,
              fileId: FILE_ID,
              fileOwnerId: e.owner,
              readerAccountIds: e.readers,
              data: { i },
            })
            counted += out.deliveries
            emitted.push({ ...e, eventId: out.eventId, at: 0 })
          }
        })
      }
      const events = await t.db.kysely.selectFrom('events').select(['id', 'created_at']).execute()
      const createdAt = new Map(events.map((row) => [row.id, Number(row.created_at)]))
      for (const e of emitted) e.at = createdAt.get(e.eventId) ?? Number.NaN
      const expected = await reference(emitted)

      const written = await t.db.kysely
        .selectFrom('deliveries')
        .select(['id', 'uuid', 'event_id', 'webhook_id', 'owner_email', 'status', 'attempts', 'is_test'])
        .select('next_attempt_at')
        .execute()
      const got = written
        .map(
          (d) =>
            `${d.event_id} ${d.webhook_id} ${d.owner_email} ${d.status} ${d.attempts} ${d.is_test} ${Number(d.next_attempt_at)}`,
        )
        .sort()
      assert.deepEqual(got, expected.deliveries)
      assert.equal(counted, expected.deliveries.length)
      // Fresh ids and uuids, one each.
      assert.equal(new Set(written.map((d) => d.id)).size, written.length)
      assert.equal(new Set(written.map((d) => d.uuid)).size, written.length)
      // Past one PostgreSQL statement's four: the busy account's six webhooks all got theirs.
      assert.ok(expected.deliveries.length > 20)

      const streamRows = await t.db.kysely
        .selectFrom('event_stream')
        .select(['event_id', 'account_id'])
        .execute()
      const gotStream = streamRows.map((row) => `${row.event_id} ${row.account_id}`).sort()
      assert.deepEqual(gotStream, expected.stream)
    })

    test('a round of successes writes exactly the reference rows (the fast path of recording)', async () => {
      const owner = await accountWithHooks(5, 'file_optimized')
      const hooks = await t.db.kysely
        .selectFrom('webhooks')
        .select('id')
        .where('owner_id', '=', owner)
        .execute()
      const hookIds = hooks.map((h) => h.id)
      // A failing webhook the successes make healthy again.
      await t.db.kysely.updateTable('webhooks').set({ failing_since: 1 }).where('id', 'in', hookIds).execute()
      await t.db.kysely.transaction().execute(async (tx) => {
        for (let i = 0; i < 3; i++) {
          await emitEvent(t.app.ctx, tx, {
            event: 'file_optimized',
            fileId: FILE_ID,
            fileOwnerId: owner,
            data: { i },
          })
        }
      })
      await t.db.kysely
        .updateTable('deliveries')
        .set({ next_attempt_at: 0 })
        .where('webhook_id', 'in', hookIds)
        .execute()
      const options = { db: t.db, workerId: 'reference-worker', config: t.config, leaseMs: 30_000 }
      const { claimed } = await recordAndClaim(options, [], 100)
      const jobs = claimed.jobs.filter((job) => hookIds.includes(job.webhook_id))
      assert.equal(jobs.length, 15)
      // One lease is lost meanwhile (taken over by another worker): its success is not recorded.
      const [lost] = jobs
      assert.ok(lost)
      await t.db.kysely
        .updateTable('deliveries')
        .set({ leased_by: 'other' })
        .where('id', '=', lost.id)
        .execute()
      const started = Date.now()
      const batch = jobs.map((job) => ({ job, started, result: SUCCESS }))
      const { recorded } = await recordAndClaim(options, batch, 0)
      assert.deepEqual(
        recorded.map((r) => r.status),
        jobs.map((job) => (job.id === lost.id ? null : 'succeeded')),
      )
      const at = recorded[1]?.at ?? 0

      const rows = await t.db.kysely
        .selectFrom('deliveries')
        .selectAll()
        .where('webhook_id', 'in', hookIds)
        .execute()
      const got = rows.map((d) =>
        [
          d.id,
          d.status,
          d.attempts,
          d.leased_by,
          d.last_status_code,
          d.completed_at && Number(d.completed_at),
        ].join(' '),
      )
      const expected = jobs.map((job) =>
        job.id === lost.id
          ? [job.id, 'delivering', 0, 'other', '', ''].join(' ')
          : [job.id, 'succeeded', 1, '', 200, at].join(' '),
      )
      assert.deepEqual(got.sort(), expected.sort())
      const attempts = await t.db.kysely
        .selectFrom('delivery_attempts')
        .selectAll()
        .where(
          'delivery_id',
          'in',
          jobs.map((job) => job.id),
        )
        .execute()
      const gotAttempts = attempts.map((a) =>
        [
          a.delivery_id,
          a.attempt,
          Number(a.started_at),
          a.duration_ms,
          a.status_code,
          a.response_excerpt,
        ].join(' '),
      )
      const expectedAttempts = jobs.map((job) => [job.id, 1, started, 7, 200, '{"success":true}'].join(' '))
      assert.deepEqual(gotAttempts.sort(), expectedAttempts.sort())
      const health = await t.db.kysely
        .selectFrom('webhooks')
        .select('failing_since')
        .where('id', 'in', hookIds)
        .execute()
      assert.deepEqual(
        health.map((h) => h.failing_since),
        hookIds.map(() => null),
      )
    })
  })
}
