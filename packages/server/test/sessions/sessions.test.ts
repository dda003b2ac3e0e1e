// Sessions and the license pool, on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp } from '../../src/app/app.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import { login, newAccount, openSession, problemOf, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testKeys } from '../support/harness.ts'

for (const dialect of dialects()) {
  describe(`sessions on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, sessionDeleteDelayMs: 400 })
    })
    after(() => t.close())

    const list = (app: TestApp['app'], headers: Record<string, string>) =>
      app.inject({ method: 'GET', url: '/file/dir/private/', headers })

    test('POST /account/session answers {success, jwt, superseded} and sets the X-Service-Session cookie', async () => {
      const account = await newAccount(t.app)
      const authToken = await login(t.app, account.username)
      const res = await t.app.inject({
        method: 'POST',
        url: '/account/session',
        headers: { authorization: `Bearer ${authToken}`, 'content-type': 'application/json' },
      })
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.deepEqual(Object.keys(body).sort(), ['jwt', 'success', 'superseded'])
      assert.equal(body.superseded, false, 'the account had no session')
      const cookie = String(res.headers['set-cookie'])
      assert.ok(cookie.startsWith(`X-Service-Session=${body.jwt};`), cookie)
      assert.match(cookie, /HttpOnly/)
      assert.match(cookie, /SameSite=Lax/)
    })

    test('a new session invalidates the old one at once', async () => {
      const s = await signedIn(t.app)
      const second = await openSession(t.app, s.authToken)
      const old = await list(t.app, s.headers)
      assert.equal(old.statusCode, 401)
      assert.equal(problemOf(old).code, 'SESSION_SUPERSEDED')
      assert.equal((await list(t.app, { ...s.headers, 'x-service-session': second })).statusCode, 200)
      // The answer says that it took over a valid session, so a client can tell its user.
      const third = await t.app.inject({
        method: 'POST',
        url: '/account/session',
        headers: { authorization: s.headers.authorization ?? '' },
      })
      assert.equal(third.json().superseded, true)
    })

    test('keep-alive answers expiresAt; delete takes effect after the delay', async () => {
      const s = await signedIn(t.app)
      const alive = await t.app.inject({ method: 'PUT', url: '/account/session', headers: s.headers })
      assert.equal(alive.statusCode, 200, alive.body)
      const expiresAt = Date.parse(alive.json().expiresAt)
      assert.ok(Math.abs(expiresAt - (Date.now() + t.config.sessionTtlMs)) < 5000)

      const deleted = await t.app.inject({ method: 'DELETE', url: '/account/session', headers: s.headers })
      assert.equal(deleted.statusCode, 200)
      const effectiveAt = Date.parse(deleted.json().effectiveAt)
      assert.ok(effectiveAt > Date.now() && effectiveAt <= Date.now() + 400)
      assert.equal((await list(t.app, s.headers)).statusCode, 200, 'still valid right after delete')
      await sleep(effectiveAt - Date.now() + 50)
      const gone = await list(t.app, s.headers)
      assert.equal(gone.statusCode, 401)
      assert.equal(problemOf(gone).code, 'SESSION_DELETED')
    })

    test('every process sharing the database refuses a superseded session at once', async () => {
      // A second API instance with its own connection(s) to the same database.
      const db2 = await openDatabase({
        databaseUrl: t.config.databaseUrl,
        dataDir: t.config.dataDir,
        pgSchema: (t.db.description.match(/schema (\w+)/) ?? [])[1],
      })
      const app2 = await buildApp(t.config, { db: db2, keys: await testKeys() })
      try {
        const s = await signedIn(t.app)
        assert.equal((await list(app2, s.headers)).statusCode, 200)
        await openSession(t.app, s.authToken)
        const res = await list(app2, s.headers)
        assert.equal(res.statusCode, 401)
        assert.equal(problemOf(res).code, 'SESSION_SUPERSEDED')
      } finally {
        await app2.close()
        await db2.close()
      }
    })
  })

  describe(`license pool on ${dialect.name}`, () => {
    test('an empty pool answers 402; expiry and deletion free licenses; a new session moves its license', async () => {
      // The TTL leaves room for five sign-ins on a loaded machine (at 700 ms, a's session could
      // expire before c asked, and c got the license the test expects to be taken).
      const t = await startApp(dialect, { licenses: 2, sessionTtlMs: 4000, sessionDeleteDelayMs: 0 })
      try {
        const a = await signedIn(t.app)
        const b = await signedIn(t.app)
        const c = await newAccount(t.app)
        const cToken = await login(t.app, c.username)
        const refused = await t.app.inject({
          method: 'POST',
          url: '/account/session',
          headers: { authorization: `Bearer ${cToken}` },
        })
        assert.equal(refused.statusCode, 402)
        assert.equal(problemOf(refused).code, 'NO_LICENSE_AVAILABLE')
        // a's license moves to a's new session, so the pool stays full for c.
        const a2 = await openSession(t.app, a.authToken)
        assert.ok(a2)
        assert.equal(
          (
            await t.app.inject({
              method: 'POST',
              url: '/account/session',
              headers: { authorization: `Bearer ${cToken}` },
            })
          ).statusCode,
          402,
        )
        // Deleting b's session (delay 0) frees its license.
        assert.equal(
          (await t.app.inject({ method: 'DELETE', url: '/account/session', headers: b.headers })).statusCode,
          200,
        )
        const c1 = await openSession(t.app, cToken)
        // Expiry frees licenses too: after the TTL without keep-alive, a's and c's are gone.
        await sleep(4100)
        const res = await t.app.inject({
          method: 'GET',
          url: '/file/dir/private/',
          headers: { authorization: `Bearer ${cToken}`, 'x-service-session': c1 },
        })
        assert.equal(problemOf(res).code, 'SESSION_EXPIRED')
        await openSession(t.app, b.authToken)
        await openSession(t.app, cToken)
      } finally {
        await t.close()
      }
    })

    test('keep-alive keeps a session past its TTL', async () => {
      const t = await startApp(dialect, { sessionTtlMs: 600 })
      try {
        const s = await signedIn(t.app)
        for (let i = 0; i < 3; i++) {
          await sleep(300)
          assert.equal(
            (await t.app.inject({ method: 'PUT', url: '/account/session', headers: s.headers })).statusCode,
            200,
          )
        }
        assert.equal(
          (await t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: s.headers })).statusCode,
          200,
        )
      } finally {
        await t.close()
      }
    })

    test('250 concurrent session creations for 50 accounts never over-commit 10 licenses', async () => {
      const t = await startApp(dialect, { licenses: 10 })
      try {
        const accounts = await Promise.all(Array.from({ length: 50 }, () => newAccount(t.app, 'race')))
        const tokens = await Promise.all(accounts.map((a) => login(t.app, a.username)))
        let maxValid = 0
        let maxPerAccount = 0
        let running = true
        // Watches the pool while the storm runs.
        const watcher = (async () => {
          while (running) {
            const now = Date.now()
            const rows = await t.db.kysely
              .selectFrom('sessions')
              .select(['account_id', 'expires_at', 'ends_at', 'superseded_at'])
              .execute()
            const valid = rows.filter(
              (r) => r.superseded_at === null && r.expires_at > now && (r.ends_at ?? Infinity) > now,
            )
            maxValid = Math.max(maxValid, valid.length)
            const perAccount = new Map<string, number>()
            for (const r of valid) perAccount.set(r.account_id, (perAccount.get(r.account_id) ?? 0) + 1)
            maxPerAccount = Math.max(maxPerAccount, ...perAccount.values(), 0)
            await sleep(1)
          }
        })()
        const results = await Promise.all(
          Array.from({ length: 250 }, (_, i) =>
            t.app.inject({
              method: 'POST',
              url: '/account/session',
              headers: { authorization: `Bearer ${tokens[i % 50]}` },
            }),
          ),
        )
        running = false
        await watcher
        const statuses = results.map((r) => r.statusCode)
        assert.ok(
          statuses.every((s) => s === 200 || s === 402),
          `statuses ${[...new Set(statuses)]}`,
        )
        assert.ok(statuses.filter((s) => s === 402).length > 0, 'the pool ran out')

        // Sweep over every session's validity interval: at no instant more than 10 valid in all,
        // or more than 1 of one account.
        const rows = await t.db.kysely.selectFrom('sessions').selectAll().execute()
        assert.equal(rows.length, statuses.filter((s) => s === 200).length)
        const events = rows.flatMap((r) => {
          const end = Math.min(r.superseded_at ?? Infinity, r.ends_at ?? Infinity, r.expires_at)
          return [
            { at: r.created_at, delta: 1, account: r.account_id },
            { at: end, delta: -1, account: r.account_id },
          ]
        })
        events.sort((x, y) => x.at - y.at || x.delta - y.delta)
        let valid = 0
        const perAccount = new Map<string, number>()
        for (const e of events) {
          valid += e.delta
          const n = (perAccount.get(e.account) ?? 0) + e.delta
          perAccount.set(e.account, n)
          assert.ok(valid <= 10, `${valid} valid sessions at ${e.at}`)
          assert.ok(n <= 1, `${n} sessions of one account at ${e.at}`)
        }
        assert.ok(maxValid <= 10, `watcher saw ${maxValid} valid sessions`)
        assert.ok(maxPerAccount <= 1, `watcher saw ${maxPerAccount} sessions of one account`)
        // And through the API: exactly the 10 sessions the pool holds still work.
        const checks = await Promise.all(
          results.map((r, i) =>
            r.statusCode !== 200
              ? null
              : t.app.inject({
                  method: 'GET',
                  url: '/file/dir/private/',
                  headers: { authorization: `Bearer ${tokens[i % 50]}`, 'x-service-session': r.json().jwt },
                }),
          ),
        )
        assert.equal(checks.filter((c) => c?.statusCode === 200).length, 10)
      } finally {
        await t.close()
      }
    })
  })
}
