// TESSERA_TRUST_PROXY: behind the TLS proxy of docs/operations.md, X-Forwarded-Proto makes credential
// cookies Secure and X-Forwarded-For tells clients apart (their failed-login budgets); untrusted
// (the default) both headers are ignored: any client could claim any address or https.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { loadConfig } from '../../src/app/config.ts'
import { newAccount, PASSWORD } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const LIMIT = 2

describe('TESSERA_TRUST_PROXY parsing', () => {
  const parse = (value: string | undefined) =>
    loadConfig({
      TESSERA_DATA_DIR: '/tmp',
      ...(value === undefined ? {} : { TESSERA_TRUST_PROXY: value }),
    }).trustProxy
  test('off by default; true, a hop count, or addresses', () => {
    assert.equal(parse(undefined), false)
    assert.equal(parse('false'), false)
    assert.equal(parse('true'), true)
    assert.equal(parse('2'), 2)
    assert.deepEqual(parse('loopback, 10.0.0.0/8,192.0.2.7, fd00::/8'), [
      'loopback',
      '10.0.0.0/8',
      '192.0.2.7',
      'fd00::/8',
    ])
  })
  test('anything else stops the start with the variable named', () => {
    for (const bad of ['yes', '10.0.0.0/33', '300.1.1.1', '0', 'loopback,example.com']) {
      assert.throws(() => parse(bad), /TESSERA_TRUST_PROXY/, bad)
    }
  })
})

for (const dialect of dialects()) {
  for (const trusted of [true, false]) {
    describe(`${trusted ? 'trusted' : 'untrusted'} proxy headers on ${dialect.name}`, () => {
      let t: TestApp
      before(async () => {
        t = await startApp(dialect, {
          loginMaxFailures: LIMIT,
          ...(trusted ? { trustProxy: ['loopback'] } : {}),
        })
      })
      after(() => t.close())

      const attempt = (username: string, password: string, forwardedFor: string) =>
        t.app.inject({
          method: 'POST',
          url: '/account/login/',
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': forwardedFor },
          payload: { username, password },
        })

      test(`X-Forwarded-Proto: https ${trusted ? 'makes' : 'does not make'} the credential cookies Secure`, async () => {
        const account = await newAccount(t.app)
        const res = await t.app.inject({
          method: 'POST',
          url: '/account/login/',
          headers: { 'x-forwarded-proto': 'https', 'x-tessera-csrf': '1' },
          payload: { username: account.username, password: PASSWORD, cookie: true },
        })
        assert.equal(res.statusCode, 200, res.body)
        const cookie = res.cookies.find((c) => c.name === 'jsonwebtoken')
        assert.ok(cookie)
        assert.equal(cookie.secure === true, trusted, String(res.headers['set-cookie']))
        // Without the header the original request was plain http: never Secure.
        const plain = await t.app.inject({
          method: 'POST',
          url: '/account/login/',
          headers: { 'x-tessera-csrf': '1' },
          payload: { username: account.username, password: PASSWORD, cookie: true },
        })
        assert.notEqual(plain.cookies.find((c) => c.name === 'jsonwebtoken')?.secure, true)
      })

      test(`X-Forwarded-For ${trusted ? 'separates' : 'does not separate'} clients behind the proxy`, async () => {
        const account = await newAccount(t.app)
        for (let i = 0; i < LIMIT; i++) {
          assert.equal((await attempt(account.username, 'wrong password', '203.0.113.7')).statusCode, 401)
        }
        assert.equal((await attempt(account.username, 'wrong password', '203.0.113.7')).statusCode, 429)
        // Another client behind the same proxy, with the right password.
        const other = await attempt(account.username, PASSWORD, '198.51.100.9')
        assert.equal(other.statusCode, trusted ? 200 : 429, other.body)
      })
    })
  }
}
