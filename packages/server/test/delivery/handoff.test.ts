// New deliveries go from the emitting transaction straight to the worker of the same process: leased
// in that transaction, sent at commit (SQLite, where the one connection makes the slot count exact
// until commit). On PostgreSQL the worker claims them as ever. What must hold on both: a rolled-back
// emit sends nothing and holds no slot, the per-webhook cap is never exceeded, an event with more
// subscribers than the emit's first statement covers (PostgreSQL: four) reaches each of them once,
// and deliveries waiting for a slot are not overtaken by newer ones.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { emitEvent } from '../../src/events/index.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { deliveriesOf, emit, ok, Receiver, register, settled, sleep, until } from '../support/receiver.ts'

const FILE_ID = 'fb0000000000000000000000'

for (const dialect of dialects()) {
  describe(`delivery hand-off on ${dialect.name}`, () => {
    let t: TestApp
    const rx = new Receiver()
    before(async () => {
      await rx.start()
      t = await startApp(dialect, { webhookMaxInFlight: 1, webhookRetryScheduleMs: [0, 60_000] })
    })
    after(async () => {
      await t.close()
      await rx.stop()
    })

    test('a committed delivery leaves at once; on SQLite it is leased in the emitting transaction', async () => {
      const user = await signedIn(t.app)
      const hookId = await register(t.app, user.authToken, 'file_uploaded', rx.on('/first', ok))
      const started = Date.now()
      await emit(t, { event: 'file_uploaded', fileId: FILE_ID, fileOwnerId: user.account.id, data: { n: 1 } })
      const [row] = await deliveriesOf(t, hookId)
      if (dialect.name === 'sqlite') {
        assert.ok(row?.status === 'delivering' || row?.status === 'succeeded', row?.status)
        if (row?.status === 'delivering') assert.ok(row.leased_by && (row.lease_expires_at ?? 0) > started)
      }
      await until('the delivery', async () => rx.at('/first').length === 1)
      assert.equal(JSON.parse(rx.at('/first')[0]?.body ?? '{}').data.n, 1)
    })

    test('an event with more subscribers than one statement covers reaches each of them once', async () => {
      const user = await signedIn(t.app)
      const hooks: string[] = []
      for (let n = 0; n < 6; n++) {
        hooks.push(await register(t.app, user.authToken, 'file_uploaded', rx.on(`/many/${n}`, ok)))
      }
      const out = await emit(t, {
        event: 'file_uploaded',
        fileId: FILE_ID,
        fileOwnerId: user.account.id,
        data: {},
      })
      assert.equal(out.deliveries, 6)
      for (const hookId of hooks) await settled(t, hookId)
      await sleep(100)
      assert.deepEqual(
        hooks.map((_, n) => rx.at(`/many/${n}`).length),
        [1, 1, 1, 1, 1, 1],
      )
    })

    test('a rolled-back emit sends nothing and holds no slot', async () => {
      const user = await signedIn(t.app)
      await register(t.app, user.authToken, 'file_uploaded', rx.on('/rollback', ok))
      for (let n = 0; n < 3; n++) {
        await assert.rejects(
          t.db.kysely.transaction().execute(async (tx) => {
            await emitEvent(t.app.ctx, tx, {
              event: 'file_uploaded',
              fileId: FILE_ID,
              fileOwnerId: user.account.id,
              data: { n: `rolled-back-${n}` },
            })
            throw new Error('the change failed')
          }),
          /the change failed/,
        )
      }
      // The cap is one in flight: a slot still held by a rolled-back delivery would stall this one.
      await emit(t, {
        event: 'file_uploaded',
        fileId: FILE_ID,
        fileOwnerId: user.account.id,
        data: { n: 'kept' },
      })
      await until('the committed delivery', async () => rx.at('/rollback').length === 1)
      await sleep(300)
      assert.deepEqual(
        rx.at('/rollback').map((r) => JSON.parse(r.body).data.n),
        ['kept'],
      )
    })

    test('a saturated webhook queues new deliveries behind the waiting ones, never above its cap', async () => {
      const user = await signedIn(t.app)
      let release: () => void = () => {}
      const gate = new Promise<void>((resolve) => {
        release = resolve
      })
      const hookId = await register(
        t.app,
        user.authToken,
        'file_uploaded',
        rx.on('/queue', async (req, res) => {
          if (JSON.parse(req.body).data.n === 0) await gate
          ok(req, res)
        }),
      )
      const send = (n: number) =>
        emit(t, { event: 'file_uploaded', fileId: FILE_ID, fileOwnerId: user.account.id, data: { n } })
      await send(0)
      await until('the first attempt to hang', async () => rx.active.get('/queue') === 1)
      // Emitted one by one while the only slot is taken: each waits, in emit order.
      for (let n = 1; n <= 4; n++) {
        await send(n)
        await sleep(5)
      }
      const waiting = await deliveriesOf(t, hookId)
      assert.deepEqual(
        waiting.map((row) => row.status),
        ['delivering', 'pending', 'pending', 'pending', 'pending'],
      )
      release()
      await until('every delivery', async () => rx.at('/queue').length === 5)
      assert.equal(rx.maxActive.get('/queue'), 1)
      // One slot: each went out after the one before it had finished, oldest first.
      assert.deepEqual(
        rx.at('/queue').map((r) => JSON.parse(r.body).data.n),
        [0, 1, 2, 3, 4],
      )
    })
  })
}
