// The event log is bounded: an event's data has a size cap (attribute_updated carries names, not
// values, past it), delivered events are pruned by age and by count while pending ones stay, and a
// deleted file's events go once delivered. Every dialect.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { EventRetention, pruneEvents, type RetentionConfig } from '../../src/events/index.ts'
import { newId } from '../../src/platform/ids.ts'
import { signedIn } from '../support/api.ts'
import { insertFileRow, type Member } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { until } from '../support/receiver.ts'

const SECRET = 'k7Qx-9vR2mWp4ZtL8bNc'
const DAY = 86_400_000

type Attributes = Record<string, Record<string, unknown>>

/** `count` nodes of one attribute holding `bytes` characters. */
function bigNodes(count: number, bytes: number, tag: string): Attributes {
  const out: Attributes = {}
  for (let n = 0; n < count; n++) out[`node${n}`] = { blob: `${tag}${'x'.repeat(bytes - tag.length)}` }
  return out
}

for (const dialect of dialects()) {
  describe(`event retention on ${dialect.name}`, () => {
    let t: TestApp
    let owner: Member
    // No delivery worker: deliveries stay pending until a test says they were delivered.
    before(async () => {
      t = await startApp(dialect, { licenses: 100 }, { workers: false })
      owner = await signedIn(t.app, 'owner')
      const hook = await t.app.inject({
        method: 'PUT',
        url: '/webhook/',
        headers: owner.headers,
        payload: { event: 'attribute_updated', url: 'http://127.0.0.1:9/hook', secretToken: SECRET },
      })
      assert.equal(hook.statusCode, 200, hook.body)
    })
    after(async () => t.close())

    const write = async (fileId: string, nodeIdToAttributes: Attributes) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/scene/attributes',
        headers: owner.headers,
        payload: { file: fileId, nodeIdToAttributes },
      })
      assert.equal(res.statusCode, 200, res.body)
    }
    const eventsOf = (fileId: string) =>
      t.db.kysely.selectFrom('events').selectAll().where('file_id', '=', fileId).orderBy('id').execute()
    const streamRowsOf = async (eventIds: string[]) =>
      eventIds.length === 0
        ? 0
        : (
            await t.db.kysely
              .selectFrom('event_stream')
              .select('seq')
              .where('event_id', 'in', eventIds)
              .execute()
          ).length
    const deliveriesOf = (eventIds: string[]) =>
      eventIds.length === 0
        ? Promise.resolve([])
        : t.db.kysely.selectFrom('deliveries').selectAll().where('event_id', 'in', eventIds).execute()
    const markDelivered = async (eventIds: string[]) => {
      await t.db.kysely
        .updateTable('deliveries')
        .set({ status: 'succeeded', completed_at: Date.now() })
        .where('event_id', 'in', eventIds)
        .execute()
    }
    /** Bytes the log holds for these events: their rows' data plus their stream rows (ids, positions). */
    async function logBytes(fileId: string): Promise<number> {
      const { rows } = await sql<{ n: number | string | null }>`
        select sum(length(data) + 80) as n from events where file_id = ${fileId}`.execute(t.db.kysely)
      const events = await eventsOf(fileId)
      return Number(rows[0]?.n ?? 0) + (await streamRowsOf(events.map((e) => e.id))) * 56
    }
    const retention = (overrides: Partial<RetentionConfig> = {}): RetentionConfig => ({
      eventRetentionMs: 30 * DAY,
      eventMaxRows: 1_000_000,
      eventDeletedFileRetentionMs: 3_600_000,
      ...overrides,
    })

    test('20 writes of 15 nodes × 60 KB: each event stays within the data cap, names what it left out', async () => {
      const fileId = await insertFileRow(t.app, owner.account.id)
      for (let i = 0; i < 20; i++) await write(fileId, bigNodes(15, 60_000, `w${i}-`))
      const events = await eventsOf(fileId)
      assert.equal(events.length, 20)
      const cap = t.config.eventMaxDataBytes
      for (const event of events) {
        assert.ok(Buffer.byteLength(event.data) <= cap, `${Buffer.byteLength(event.data)} > ${cap}`)
        const data = JSON.parse(event.data)
        assert.equal(data.truncated, true)
        assert.equal(data.user.email, owner.account.email)
        // Every written node is named: with its value, or in `omitted`.
        const named = new Set([...Object.keys(data.nodeIdToAttributes), ...Object.keys(data.omitted)])
        assert.equal(named.size, 15)
        assert.equal(data.omittedNodes, 0)
        assert.equal(Object.keys(data.nodeIdToAttributes).length, 1) // one 60 KB value fits in 64 KiB
      }
      const bytes = await logBytes(fileId)
      console.log(`# ${dialect.name}: 20 writes × 15 nodes × 60 KB → event log ${bytes} bytes`)
      assert.ok(bytes <= 20 * (cap + 200), `${bytes} bytes`)
      // A small write is carried whole, exactly as written.
      await write(fileId, { node0: { small: 1, gone: null } })
      const last = (await eventsOf(fileId)).at(-1)
      assert.deepEqual(JSON.parse(last?.data ?? ''), {
        user: { email: owner.account.email },
        nodeIdToAttributes: { node0: { small: 1, gone: null } },
      })
    })

    test('pruning by age and by count removes delivered events, keeps pending ones', async () => {
      const fileId = await insertFileRow(t.app, owner.account.id)
      for (let i = 0; i < 3; i++) await write(fileId, { node0: { i } })
      // The count's cut falls on a second boundary: the newest event in a second of its own.
      await new Promise((resolve) => setTimeout(resolve, 1100))
      await write(fileId, { node0: { i: 3 } })
      const ids = (await eventsOf(fileId)).map((e) => e.id)
      assert.equal((await deliveriesOf(ids)).length, 4)
      await markDelivered(ids.slice(0, 2))
      // Within retention nothing goes.
      await pruneEvents(t.db, retention())
      assert.equal((await eventsOf(fileId)).length, 4)
      // Past retention: the two delivered ones go with their deliveries and stream rows.
      const pruned = await pruneEvents(t.db, retention(), Date.now() + 31 * DAY)
      assert.ok(pruned.events >= 2)
      assert.deepEqual(
        (await eventsOf(fileId)).map((e) => e.id),
        ids.slice(2),
      )
      assert.equal(await streamRowsOf(ids.slice(0, 2)), 0)
      assert.equal((await deliveriesOf(ids)).length, 2)
      assert.deepEqual(
        (await deliveriesOf(ids)).map((d) => d.status),
        ['pending', 'pending'],
      )
      // By count: beyond the cap the oldest delivered go, the pending stay whatever the cap.
      await markDelivered([ids[2] ?? ''])
      await pruneEvents(t.db, retention({ eventMaxRows: 1 }))
      assert.deepEqual(
        (await eventsOf(fileId)).map((e) => e.id),
        ids.slice(3),
      )
      assert.equal((await deliveriesOf(ids))[0]?.status, 'pending')
    })

    test('many old events go batch by batch, with their attempts; a pending one stays', async () => {
      const webhook = await t.db.kysely
        .selectFrom('webhooks')
        .select('id')
        .where('owner_id', '=', owner.account.id)
        .executeTakeFirstOrThrow()
      const fileId = await insertFileRow(t.app, owner.account.id)
      const old = Date.now() - 40 * DAY
      const ids: string[] = []
      for (let chunk = 0; chunk < 3; chunk++) {
        const events = []
        const deliveries = []
        const attempts = []
        for (let i = 0; i < 400; i++) {
          const at = old + (chunk * 400 + i) * 1000
          const id = newId(at)
          const deliveryId = newId(at)
          ids.push(id)
          events.push({
            id,
            event: 'attribute_updated',
            file_id: fileId,
            data: '{}',
            run_timestamp: at,
            created_at: at,
          })
          deliveries.push({
            id: deliveryId,
            uuid: randomUUID(),
            event_id: id,
            webhook_id: webhook.id,
            owner_email: owner.account.email,
            status: chunk === 2 && i === 399 ? 'pending' : 'succeeded',
            attempts: 1,
            next_attempt_at: at,
            lease_expires_at: null,
            leased_by: null,
            last_status_code: 200,
            last_error_code: null,
            created_at: at,
            updated_at: at,
            completed_at: at,
            is_test: 0,
          })
          attempts.push({
            id: newId(at),
            delivery_id: deliveryId,
            attempt: 1,
            started_at: at,
            duration_ms: 1,
            status_code: 200,
            error_code: null,
            error_message: null,
            response_excerpt: '',
          })
        }
        await t.db.kysely.insertInto('events').values(events).execute()
        await t.db.kysely.insertInto('deliveries').values(deliveries).execute()
        await t.db.kysely.insertInto('delivery_attempts').values(attempts).execute()
      }
      const pruned = await pruneEvents(t.db, retention())
      assert.ok(pruned.events >= 1199 && pruned.deliveries >= 1199, JSON.stringify(pruned))
      assert.deepEqual(
        (await eventsOf(fileId)).map((e) => e.id),
        ids.slice(-1),
      )
      const attemptsLeft = await t.db.kysely
        .selectFrom('delivery_attempts as a')
        .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
        .select('a.id')
        .where('d.event_id', 'in', ids)
        .execute()
      assert.equal(attemptsLeft.length, 1)
      const orphans = await t.db.kysely
        .selectFrom('delivery_attempts')
        .select('id')
        .where('delivery_id', 'not in', (eb) => eb.selectFrom('deliveries').select('id'))
        .execute()
      assert.equal(orphans.length, 0)
    })

    test('EventRetention sweeps at start and stops cleanly', async () => {
      const fileId = await insertFileRow(t.app, owner.account.id)
      const at = Date.now() - 40 * DAY
      const id = newId(at)
      await t.db.kysely
        .insertInto('events')
        .values({
          id,
          event: 'attribute_updated',
          file_id: fileId,
          data: '{}',
          run_timestamp: at,
          created_at: at,
        })
        .execute()
      const sweeper = new EventRetention(t.db, retention(), t.app.ctx.log)
      sweeper.start()
      try {
        await until('the old event pruned', async () => (await eventsOf(fileId)).length === 0)
      } finally {
        await sweeper.stop()
      }
    })

    test('a deleted file’s events go once delivered and the file has been gone long enough', async () => {
      const fileId = await insertFileRow(t.app, owner.account.id)
      await write(fileId, { node0: { a: 1 } })
      await write(fileId, { node0: { a: 2 } })
      const ids = (await eventsOf(fileId)).map((e) => e.id)
      await markDelivered(ids.slice(0, 1))
      const res = await t.app.inject({ method: 'DELETE', url: `/file/${fileId}`, headers: owner.headers })
      assert.equal(res.statusCode, 200, res.body)
      // The newest stream row stays on SQLite (its seq is max + 1): make it another file's.
      await write(await insertFileRow(t.app, owner.account.id), { node0: { other: true } })
      await pruneEvents(t.db, retention())
      assert.equal((await eventsOf(fileId)).length, 2, 'not yet: deleted less than an hour ago')
      await pruneEvents(t.db, retention(), Date.now() + 2 * 3_600_000)
      assert.deepEqual(
        (await eventsOf(fileId)).map((e) => e.id),
        ids.slice(1),
        'the pending one stays',
      )
      await markDelivered(ids)
      await pruneEvents(t.db, retention(), Date.now() + 2 * 3_600_000)
      assert.equal((await eventsOf(fileId)).length, 0)
      assert.equal(await streamRowsOf(ids), 0)
      assert.equal((await deliveriesOf(ids)).length, 0)
    })
  })
}
