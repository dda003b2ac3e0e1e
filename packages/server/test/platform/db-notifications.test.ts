// PostgreSQL's one LISTEN connection per opened database (platform/db/notifications.ts): a whole
// app (delivery and conversion workers, session cache, event stream) holds exactly one; every
// subscriber hears its channel; a killed connection is reported to all and comes back; closing the
// database ends it for good.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { deliveryChannel } from '../../src/delivery/wake.ts'
import { streamChannel } from '../../src/events/wake.ts'
import type { NotificationSubscriber } from '../../src/platform/db/notifications.ts'
import { ROW_CHANGE_CHANNEL } from '../../src/platform/db/row-changes.ts'
import { jobsChannel } from '../../src/platform/jobs.ts'
import { signedIn } from '../support/api.ts'
import { type DialectUnderTest, dialects, startApp, type TestApp } from '../support/harness.ts'

const postgres = dialects().find((d) => d.name === 'postgres')
/** Only called when the suite runs, i.e. when PostgreSQL is configured. */
function pgDialect(): DialectUnderTest {
  if (!postgres) throw new Error('PostgreSQL is not configured')
  return postgres
}

/** A subscriber that records what it hears. */
function recorder() {
  const heard = { payloads: [] as string[], ups: 0, downs: [] as (Error | null)[] }
  const subscriber: NotificationSubscriber = {
    notify: (payload) => heard.payloads.push(payload),
    up: () => {
      heard.ups += 1
    },
    down: (error) => heard.downs.push(error),
  }
  return { heard, subscriber }
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

describe('one LISTEN connection per database (PostgreSQL)', { skip: !postgres }, () => {
  let t: TestApp
  let admin: pg.Client
  let applicationName: string
  before(async () => {
    t = await startApp(pgDialect(), {}, { conversions: true })
    const schema = (t.db.description.match(/schema (\w+)/) ?? [])[1]
    applicationName = `tessera-listen:${schema}`
    admin = new pg.Client({ connectionString: t.config.databaseUrl })
    await admin.connect()
  })
  after(async () => {
    await admin.end()
    await t.close()
  })

  const listening = async () => {
    const { rows } = await admin.query<{ pid: number; query: string }>(
      'select pid, query from pg_stat_activity where application_name = $1',
      [applicationName],
    )
    return rows
  }
  test('the app listens for deliveries, conversions, auth rows and the stream on one connection', async () => {
    const s = await signedIn(t.app)
    // An open event stream subscribes its channel too.
    const controller = new AbortController()
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
    const stream = fetch(`${address}/events/stream`, {
      headers: s.headers,
      signal: controller.signal,
    }).catch(() => null)
    try {
      const notifications = t.db.notifications
      assert.ok(notifications)
      const all = [ROW_CHANGE_CHANNEL, deliveryChannel.name, jobsChannel.name, streamChannel.name]
      await until(`all four channels (listening: ${notifications.channels})`, () =>
        all.every((c) => notifications.channels.includes(c)),
      )
      assert.equal((await listening()).length, 1, 'exactly one LISTEN connection for the whole app')
      for (const channel of all) {
        const { heard, subscriber } = recorder()
        const unsubscribe = notifications.subscribe(channel, subscriber)
        await until(`${channel} up`, () => heard.ups === 1)
        await admin.query('select pg_notify($1, $2)', [channel, `hello ${channel}`])
        await until(`${channel} notified`, () => heard.payloads.includes(`hello ${channel}`))
        unsubscribe()
      }
      assert.equal((await listening()).length, 1, 'still one connection')
    } finally {
      controller.abort()
      await stream
    }
  })

  test('a killed connection: every subscriber hears down, then up again; notifications resume', async () => {
    const notifications = t.db.notifications
    assert.ok(notifications)
    const a = recorder()
    const b = recorder()
    const stopA = notifications.subscribe('tessera_test_a', a.subscriber)
    const stopB = notifications.subscribe('tessera_test_b', b.subscriber)
    await until('both up', () => a.heard.ups === 1 && b.heard.ups === 1)

    const killed = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
      [applicationName],
    )
    assert.equal(killed.rowCount, 1)
    await until('both down', () => a.heard.downs.length >= 1 && b.heard.downs.length >= 1)
    assert.ok(a.heard.downs[0] instanceof Error, 'a loss carries its error')
    await until('both up again', () => a.heard.ups === 2 && b.heard.ups === 2)
    // The killed backend may linger in pg_stat_activity for a moment after it was told to go.
    await until('one connection again', async () => (await listening()).length === 1)

    await admin.query(`select pg_notify('tessera_test_b', 'after')`)
    await until('b notified', () => b.heard.payloads.includes('after'))
    assert.deepEqual(a.heard.payloads, [], 'a channel hears only its own notifications')

    stopA()
    await admin.query(`select pg_notify('tessera_test_a', 'unheard')`)
    await admin.query(`select pg_notify('tessera_test_b', 'heard')`)
    await until('b notified again', () => b.heard.payloads.includes('heard'))
    assert.deepEqual(a.heard.payloads, [], 'an unsubscribed subscriber hears nothing')
    stopB()
  })

  test('bad channel names are refused before they reach SQL', () => {
    const notifications = t.db.notifications
    assert.ok(notifications)
    assert.throws(
      () => notifications.subscribe('x; drop table files', recorder().subscriber),
      /bad channel name/,
    )
  })

  test('closing the database ends the connection for good and tells subscribers', async () => {
    const opened = await pgDialect().open()
    const db = opened.db
    const notifications = db.notifications
    assert.ok(notifications)
    const name = `tessera-listen:${notifications.pgSchema}`
    const { heard, subscriber } = recorder()
    notifications.subscribe('tessera_test_close', subscriber)
    await until('up', () => heard.ups === 1)
    await db.close()
    assert.deepEqual(heard.downs, [null], 'closed, not lost')
    await sleep(300) // longer than the first reconnect delay
    const { rows } = await admin.query('select 1 from pg_stat_activity where application_name = $1', [name])
    assert.equal(rows.length, 0, 'no connection left behind, none reopened')
    assert.throws(() => notifications.subscribe('tessera_test_close', subscriber), /closed/)
    await opened.drop()
  })
})
