// Signing in with the account's e-mail in place of its username (the spec's request shape: the
// e-mail goes in `username`), in any case; and the failed-login budgets of an account are keyed by
// the account, so alternating its username and its e-mail does not double the guesses.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { newAccount, PASSWORD, problemOf } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const LIMIT = 4

for (const dialect of dialects()) {
  describe(`login by e-mail on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { loginMaxFailures: LIMIT, trustProxy: ['loopback'] })
    })
    after(() => t.close())

    const attempt = (username: string, password: string, client = '203.0.113.20') =>
      t.app.inject({
        method: 'POST',
        url: '/account/login/',
        headers: { 'x-forwarded-for': client },
        payload: { username, password },
      })

    test('the e-mail signs in, in any case, as the account it belongs to', async () => {
      const account = await newAccount(t.app)
      for (const typed of [account.email, account.email.toUpperCase(), `  ${account.email} `]) {
        const res = await attempt(typed, PASSWORD)
        assert.equal(res.statusCode, 200, res.body)
        const body = res.json() as { username: string; email: string; cookies: string }
        assert.equal(body.username, account.username)
        assert.equal(body.email, account.email)
        assert.match(body.cookies, /^jsonwebtoken=/)
      }
    })

    test('a wrong password with the e-mail is the usual 401; an unknown e-mail too', async () => {
      const account = await newAccount(t.app)
      const wrong = await attempt(account.email, 'wrong password', '203.0.113.21')
      assert.equal(wrong.statusCode, 401)
      assert.equal(problemOf(wrong).code, 'INVALID_CREDENTIALS')
      const unknown = await attempt(`nobody${process.pid}@example.com`, PASSWORD, '203.0.113.21')
      assert.equal(unknown.statusCode, 401)
      assert.equal(problemOf(unknown).code, 'INVALID_CREDENTIALS')
    })

    test('alternating username and e-mail spends one budget: 429 after LIMIT failures in all', async () => {
      const account = await newAccount(t.app)
      const names = [account.username, account.email, account.email.toUpperCase(), account.username]
      for (const name of names.slice(0, LIMIT)) {
        assert.equal((await attempt(name, 'wrong password', '192.0.2.60')).statusCode, 401, name)
      }
      for (const name of [account.username, account.email]) {
        const res = await attempt(name, 'wrong password', '192.0.2.60')
        assert.equal(res.statusCode, 429, name)
        assert.equal(problemOf(res).code, 'TOO_MANY_REQUESTS')
      }
      // The budget is the account's: one row for it, none named by what was typed.
      const rows = await t.db.kysely
        .selectFrom('login_failures')
        .select('key')
        .where('key', 'like', 'account:%')
        .execute()
      const keys = rows.map((row) => row.key)
      assert.ok(keys.includes(`account:${account.id}|ip:192.0.2.60`), keys.join(' '))
      assert.ok(!keys.some((key) => key.includes(account.username) || key.includes('@')), keys.join(' '))
    })

    test('the account-wide budget is shared by both names from many addresses', async () => {
      const account = await newAccount(t.app)
      const counts: Record<number, number> = {}
      for (let i = 0; i < 12 * LIMIT; i++) {
        const name = i % 2 === 0 ? account.username : account.email
        const res = await attempt(name, 'wrong password', `10.7.${i}.1`)
        counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1
      }
      // 10 x LIMIT checks at most for the account, whichever name was typed.
      assert.equal(counts[401], 10 * LIMIT, JSON.stringify(counts))
      assert.equal(counts[429], 2 * LIMIT, JSON.stringify(counts))
    })
  })
}
