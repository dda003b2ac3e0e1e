// The failed-login limit holds under a concurrent burst: every attempt is reserved in the database
// before its password is checked, so at most LIMIT argon2 verifications run, on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { newAccount, PASSWORD } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const LIMIT = 4

for (const dialect of dialects()) {
  describe(`failed-login limit on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { loginMaxFailures: LIMIT })
    })
    after(() => t.close())

    const attempt = (username: string, password: string, ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/account/login/',
        remoteAddress: ip,
        payload: { username, password },
      })

    async function burst(username: string, ipOf: (i: number) => string): Promise<Record<number, number>> {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => attempt(username, 'wrong password', ipOf(i))),
      )
      const counts: Record<number, number> = {}
      for (const res of answers) counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1
      return counts
    }

    test('50 concurrent wrong logins from one IP: at most LIMIT password checks (401), the rest 429', async () => {
      const account = await newAccount(t.app)
      const counts = await burst(account.username, () => '10.1.0.1')
      assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 50, JSON.stringify(counts))
      assert.ok((counts[401] ?? 0) <= LIMIT, `${counts[401]} password checks for a limit of ${LIMIT}`)
      // The account is still reachable from elsewhere, and the right password still works there.
      assert.equal((await attempt(account.username, PASSWORD, '10.1.0.2')).statusCode, 200)
    })

    test('spread over 50 IPs, one username gets at most 10 x LIMIT checks', async () => {
      const account = await newAccount(t.app)
      const first = await burst(account.username, (i) => `10.2.${i}.1`)
      const second = await burst(account.username, (i) => `10.3.${i}.1`)
      const checked = (first[401] ?? 0) + (second[401] ?? 0)
      assert.ok(
        checked <= 10 * LIMIT,
        `${checked} password checks for a per-username budget of ${10 * LIMIT}`,
      )
      assert.ok((second[429] ?? 0) > 0, JSON.stringify(second))
    })

    test('a successful login gives its reservation back', async () => {
      const account = await newAccount(t.app)
      const ip = '10.4.0.1'
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < LIMIT - 1; i++) {
          assert.equal((await attempt(account.username, 'wrong password', ip)).statusCode, 401)
        }
        assert.equal((await attempt(account.username, PASSWORD, ip)).statusCode, 200)
      }
    })
  })
}
