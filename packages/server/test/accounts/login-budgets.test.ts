// Failed-login budgets that an anonymous client cannot spend for someone else: made-up usernames
// have no budget of their own (no row per name; a bounded set of shared budgets instead, throttled
// like a real name so a 429 tells no names apart) and never touch a real account's, so a client
// failing at made-up names behind the proxy does not stop a real user elsewhere; a real name
// attacked from many addresses is still limited.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { clientKey, UNKNOWN_NAME_BUCKETS } from '../../src/modules/accounts/login-budgets.ts'
import { newAccount, PASSWORD } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const LIMIT = 4

test('client keys: IPv4 as is, IPv4-mapped as IPv4, IPv6 by its /64', () => {
  assert.equal(clientKey('203.0.113.7'), '203.0.113.7')
  assert.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7')
  assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64')
  assert.equal(clientKey('2001:db8:1:2::bbbb'), '2001:db8:1:2::/64')
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64')
})

for (const dialect of dialects()) {
  describe(`login budgets behind a trusted proxy on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { loginMaxFailures: LIMIT, trustProxy: ['loopback'] })
    })
    after(() => t.close())

    const attempt = (username: string, password: string, client: string) =>
      t.app.inject({
        method: 'POST',
        url: '/account/login/',
        headers: { 'x-forwarded-for': client },
        payload: { username, password },
      })

    const statuses = async (runs: Array<Promise<{ statusCode: number }>>) => {
      const counts: Record<number, number> = {}
      for (const res of await Promise.all(runs)) counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1
      return counts
    }

    test('110 failed logins at made-up names from one client do not stop a real user elsewhere', async () => {
      const account = await newAccount(t.app)
      const prefix = `madeup${process.pid}x`
      const counts: Record<number, number> = {}
      for (let i = 0; i < 110; i++) {
        const res = await attempt(`${prefix}${i}`, 'wrong password', '203.0.113.7')
        counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1
      }
      // The client's own budget stops it (10 x LIMIT password checks at most)…
      assert.ok((counts[401] ?? 0) <= 10 * LIMIT, JSON.stringify(counts))
      assert.ok((counts[429] ?? 0) > 0, JSON.stringify(counts))
      // …the real user, from another address behind the same proxy, logs in.
      const real = await attempt(account.username, PASSWORD, '198.51.100.9')
      assert.equal(real.statusCode, 200, real.body)
      // No counter per made-up name: the rows stay bounded whatever names are tried.
      const perName = await t.db.kysely
        .selectFrom('login_failures')
        .select('key')
        .where('key', 'like', `%${prefix}%`)
        .execute()
      assert.deepEqual(perName, [])
      const unknown = await t.db.kysely
        .selectFrom('login_failures')
        .select('key')
        .where('key', 'like', 'unknown:%')
        .execute()
      // Per bucket, and per bucket and client (one client here).
      assert.ok(unknown.length <= 2 * UNKNOWN_NAME_BUCKETS, `${unknown.length} rows`)
    })

    test('a real name attacked from many addresses is still limited (10 x LIMIT checks)', async () => {
      const account = await newAccount(t.app)
      const counts = await statuses(
        Array.from({ length: 12 * LIMIT }, (_, i) =>
          attempt(account.username, 'wrong password', `10.9.${i}.1`),
        ),
      )
      assert.ok((counts[401] ?? 0) <= 10 * LIMIT, JSON.stringify(counts))
      assert.ok((counts[429] ?? 0) >= 2 * LIMIT, JSON.stringify(counts))
    })

    test('a made-up name is throttled like a real one: 429 after LIMIT failures from one client', async () => {
      const account = await newAccount(t.app)
      for (const name of [account.username, `nobody${process.pid}`]) {
        for (let i = 0; i < LIMIT; i++) {
          assert.equal((await attempt(name, 'wrong password', '192.0.2.44')).statusCode, 401, name)
        }
        assert.equal((await attempt(name, 'wrong password', '192.0.2.44')).statusCode, 429, name)
      }
    })

    test('a made-up name guessed at from many addresses is throttled like a real one', async () => {
      const counts = await statuses(
        Array.from({ length: 12 * LIMIT }, (_, i) =>
          attempt(`ghost${process.pid}`, 'wrong password', `10.8.${i}.1`),
        ),
      )
      assert.ok((counts[401] ?? 0) <= 10 * LIMIT, JSON.stringify(counts))
      assert.ok((counts[429] ?? 0) >= 2 * LIMIT, JSON.stringify(counts))
    })
  })
}
