// The session cache (modules/sessions/session-cache.ts) across processes: two app instances, each
// with its own connection(s) to one database (= two processes' caches). A session superseded,
// deleted, expired or disabled through one instance is refused by the OTHER within 100 ms; on
// PostgreSQL also while and after its LISTEN connection is killed.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../src/app/app.ts'
import { setAccountDisabled } from '../../src/modules/sessions/index.ts'
import { type Db, openDatabase } from '../../src/platform/db/index.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testKeys } from '../support/harness.ts'

const WITHIN_MS = 100
const TTL_MS = 1500

type Headers = Record<string, string>

const list = (app: FastifyInstance, headers: Headers) =>
  app.inject({ method: 'GET', url: '/file/dir/private/', headers })

/**
 * Asks `app` until it refuses `headers` with `code`; fails unless a request sent within `ms` of
 * the change (which has returned when this is called) is refused. The time a request takes on this
 * shared machine does not count: the refusal must be decided by then, not answered.
 */
async function refusedWithin(app: FastifyInstance, headers: Headers, code: string, ms = WITHIN_MS) {
  const start = Date.now()
  for (;;) {
    const sentAt = Date.now()
    const res = await list(app, headers)
    if (res.statusCode === 401) {
      assert.equal(res.json().code, code)
      assert.ok(sentAt - start <= ms, `refused only a request sent after ${sentAt - start} ms`)
      return
    }
    assert.equal(res.statusCode, 200, res.body)
    if (Date.now() - start > ms) assert.fail(`still accepted after ${Date.now() - start} ms`)
    await sleep(2)
  }
}

/** The instance that made the change refuses at once: its very next request. */
async function refusedNow(app: FastifyInstance, headers: Headers, code: string) {
  const res = await list(app, headers)
  assert.equal(res.statusCode, 401, res.body)
  assert.equal(res.json().code, code)
}

/** Both instances accept the session, the second at least twice (so its cache holds the row). */
async function warm(apps: FastifyInstance[], headers: Headers) {
  for (const app of [...apps, ...apps]) assert.equal((await list(app, headers)).statusCode, 200)
}

for (const dialect of dialects()) {
  describe(`session cache across instances on ${dialect.name}`, () => {
    let t: TestApp
    let db2: Db
    let other: FastifyInstance
    let schema: string | undefined
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, sessionTtlMs: TTL_MS, sessionDeleteDelayMs: 200 })
      schema = (t.db.description.match(/schema (\w+)/) ?? [])[1]
      db2 = await openDatabase({
        databaseUrl: t.config.databaseUrl,
        dataDir: t.config.dataDir,
        pgSchema: schema,
      })
      other = await buildApp(t.config, { db: db2, keys: await testKeys(), conversions: false })
      await other.ready()
      if (dialect.name === 'postgres') await listenersUp(t.config.databaseUrl ?? '', schema, 2)
    })
    after(async () => {
      await other.close()
      await db2.close()
      await t.close()
    })

    test('superseded: a new session via one instance', async () => {
      const s = await signedIn(t.app)
      await warm([t.app, other], s.headers)
      const login = await t.app.inject({
        method: 'POST',
        url: '/account/session',
        headers: { authorization: `Bearer ${s.authToken}` },
      })
      assert.equal(login.statusCode, 200)
      await refusedWithin(other, s.headers, 'SESSION_SUPERSEDED')
      await refusedNow(t.app, s.headers, 'SESSION_SUPERSEDED')
    })

    test('deleted: logout now, and DELETE after its delay', async () => {
      const a = await signedIn(t.app)
      await warm([t.app, other], a.headers)
      const out = await t.app.inject({ method: 'POST', url: '/account/logout', headers: a.headers })
      assert.equal(out.json().ended, true)
      await refusedWithin(other, a.headers, 'SESSION_DELETED')

      const b = await signedIn(t.app)
      await warm([t.app, other], b.headers)
      const del = await t.app.inject({ method: 'DELETE', url: '/account/session', headers: b.headers })
      const effectiveAt = Date.parse(del.json().effectiveAt)
      await warm([other], b.headers)
      await sleep(Math.max(0, effectiveAt - Date.now()))
      await refusedWithin(other, b.headers, 'SESSION_DELETED')
    })

    test('expired: at its expiry; a keep-alive elsewhere moves it', async () => {
      const a = await signedIn(t.app)
      const b = await signedIn(t.app)
      await warm([t.app, other], a.headers)
      await warm([t.app, other], b.headers)
      await sleep(TTL_MS / 2)
      const alive = await t.app.inject({ method: 'PUT', url: '/account/session', headers: b.headers })
      assert.equal(alive.statusCode, 200)
      await warm([other], b.headers)
      await sleep(TTL_MS / 2 - 20)
      await refusedWithin(other, a.headers, 'SESSION_EXPIRED', WITHIN_MS + 20)
      // b's old expiry has passed too; the other instance knows of the keep-alive.
      assert.equal((await list(other, b.headers)).statusCode, 200)
    })

    test('disabled: the account, through the service one instance runs', async () => {
      const s = await signedIn(t.app)
      await warm([t.app, other], s.headers)
      await setAccountDisabled(t.app.ctx, s.account.id, true)
      await refusedWithin(other, s.headers, 'ACCOUNT_DISABLED')
      await refusedNow(t.app, s.headers, 'ACCOUNT_DISABLED')
    })

    if (dialect.name === 'postgres') {
      test('LISTEN connection killed: rows are read meanwhile, the cache recovers', async () => {
        const url = t.config.databaseUrl ?? ''
        const admin = new pg.Client({ connectionString: url })
        await admin.connect()
        try {
          const s = await signedIn(t.app)
          await warm([t.app, other], s.headers)
          // Proof the cache answers: a change that fires no trigger goes unseen while it is warm.
          await silentlySupersede(admin, schema, s.account.id, Date.now())
          assert.equal((await list(other, s.headers)).statusCode, 200)
          await silentlySupersede(admin, schema, s.account.id, undefined)

          const killed = await admin.query(
            'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
            [`tessera-listen:${schema}`],
          )
          assert.equal(killed.rowCount, 2)
          // No notification can reach anyone now; the instances must read the row.
          await silentlySupersede(admin, schema, s.account.id, Date.now())
          await refusedWithin(other, s.headers, 'SESSION_SUPERSEDED')
          await refusedWithin(t.app, s.headers, 'SESSION_SUPERSEDED')

          await listenersUp(url, schema, 2)
          const again = await signedIn(t.app)
          await warm([t.app, other], again.headers)
          await silentlySupersede(admin, schema, again.account.id, Date.now())
          assert.equal((await list(other, again.headers)).statusCode, 200, 'cached again')
          await silentlySupersede(admin, schema, again.account.id, undefined)
          await openSessionVia(t.app, again.authToken)
          await refusedWithin(other, again.headers, 'SESSION_SUPERSEDED')
        } finally {
          await admin.end()
        }
      })
    }
  })
}

async function openSessionVia(app: FastifyInstance, authToken: string) {
  const res = await app.inject({
    method: 'POST',
    url: '/account/session',
    headers: { authorization: `Bearer ${authToken}` },
  })
  assert.equal(res.statusCode, 200)
}

/**
 * Sets superseded_at of the account's session with triggers off (session_replication_role =
 * replica), so no NOTIFY goes out: only a cache that reads the row can see it. `undefined` = back
 * to null by an ordinary update, which does notify.
 */
async function silentlySupersede(
  admin: pg.Client,
  schema: string | undefined,
  accountId: string,
  supersededAt: number | null | undefined,
) {
  const table = `${schema ?? 'public'}.sessions`
  if (supersededAt === undefined) {
    await admin.query(`update ${table} set superseded_at = null where account_id = $1`, [accountId])
    return
  }
  await admin.query('begin')
  await admin.query('set local session_replication_role = replica')
  await admin.query(`update ${table} set superseded_at = $2 where account_id = $1`, [accountId, supersededAt])
  await admin.query('commit')
}

/** Waits (up to 10 s) until `count` row-change LISTEN connections of the schema have a feed registered. */
async function listenersUp(url: string, schema: string | undefined, count: number) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (let i = 0; i < 500; i++) {
      // A feed registers itself once its LISTEN is answered (platform/db/row-sync.ts).
      const { rows } = await client.query<{ n: string }>(
        `select count(distinct l.pid) as n from ${schema ?? 'public'}.auth_listeners l join pg_stat_activity a
           on a.pid = l.pid and a.backend_start = l.backend_start where a.application_name = $1`,
        [`tessera-listen:${schema}`],
      )
      if (Number(rows[0]?.n) >= count) return
      await sleep(20)
    }
    assert.fail('row-change listeners did not come up')
  } finally {
    await client.end()
  }
}
