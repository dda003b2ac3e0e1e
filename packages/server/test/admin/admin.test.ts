// Accounts for the console: password change, the admin routes (admins only), and the CLI's
// `accounts passwd` (password on stdin) and `accounts set-email` as child processes — on every dialect.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app/app.ts'
import { loadConfig } from '../../src/app/config.ts'
import { createAccount } from '../../src/modules/accounts/index.ts'
import { login, openSession, PASSWORD, problemOf, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testKeys, uniqueName } from '../support/harness.ts'
import { BIN } from '../support/process.ts'
import { processTargets } from '../support/targets.ts'

/** `tessera <args>` with `input` on stdin (a pipe, not a terminal). */
function cli(args: string[], env: Record<string, string>, input: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, TESSERA_LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
    child.stdin?.end(input)
  })
}

for (const dialect of dialects()) {
  describe(`accounts and admin routes on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 })
    })
    after(() => t.close())

    async function signedInAdmin() {
      const account = await createAccount(t.app.ctx, {
        email: `${uniqueName('adm')}@example.com`,
        username: uniqueName('adm'),
        password: PASSWORD,
        admin: true,
      })
      const authToken = await login(t.app, account.username)
      const sessionToken = await openSession(t.app, authToken)
      return { account, headers: { authorization: `Bearer ${authToken}`, 'x-service-session': sessionToken } }
    }

    test('PUT /account/password: current password required, new one checked, session kept', async () => {
      const s = await signedIn(t.app)
      const change = (payload: Record<string, string>) =>
        t.app.inject({ method: 'PUT', url: '/account/password', headers: s.headers, payload })
      const wrong = await change({ currentPassword: 'not the password', newPassword: 'a new long password' })
      assert.equal(wrong.statusCode, 403)
      assert.equal(problemOf(wrong).code, 'WRONG_PASSWORD')
      const short = await change({ currentPassword: PASSWORD, newPassword: 'short' })
      assert.equal(problemOf(short).code, 'VALIDATION_FAILED')
      const extra = await change({ currentPassword: PASSWORD, newPassword: 'a new long password', x: '1' })
      assert.equal(extra.statusCode, 400)
      const ok = await change({ currentPassword: PASSWORD, newPassword: 'a new long password' })
      assert.equal(ok.statusCode, 200, ok.body)
      assert.deepEqual(Object.keys(ok.json()).sort(), ['cookies', 'success'])
      const fresh = String(ok.json().cookies).slice('jsonwebtoken='.length)
      const old = await t.app.inject({
        method: 'POST',
        url: '/account/login/',
        payload: { username: s.account.username, password: PASSWORD },
      })
      assert.equal(old.statusCode, 401)
      await login(t.app, s.account.username, 'a new long password')
      // The session stays valid, with the fresh auth token (the old one is revoked: token-revocation.test.ts).
      const still = await t.app.inject({
        method: 'GET',
        url: '/file/dir/private/',
        headers: { ...s.headers, authorization: `Bearer ${fresh}` },
      })
      assert.equal(still.statusCode, 200, 'the session stays valid')
    })

    test('admin routes: list, create, disable/enable, licenses; non-admins get 403', async () => {
      const admin = await signedInAdmin()
      const user = await signedIn(t.app)
      for (const [method, url] of [
        ['GET', '/admin/accounts'],
        ['GET', '/admin/licenses'],
        ['PATCH', `/admin/accounts/${admin.account.id}`],
        ['POST', '/admin/accounts'],
      ] as const) {
        const payload = method === 'PATCH' ? { disabled: true } : method === 'POST' ? {} : undefined
        const res = await t.app.inject({
          method,
          url,
          // GET /admin/licenses takes the auth token alone; a non-admin's is refused all the same.
          headers:
            url === '/admin/licenses' ? { authorization: user.headers.authorization ?? '' } : user.headers,
          ...(payload ? { payload } : {}),
        })
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`)
        assert.equal(problemOf(res).code, 'FORBIDDEN')
      }
      const created = await t.app.inject({
        method: 'POST',
        url: '/admin/accounts',
        headers: admin.headers,
        payload: { email: 'New.Person@Example.com', username: 'newperson', password: PASSWORD },
      })
      assert.equal(created.statusCode, 200, created.body)
      const account = created.json().account as {
        id: string
        email: string
        isAdmin: boolean
        disabled: boolean
      }
      assert.equal(account.email, 'new.person@example.com')
      assert.equal(account.isAdmin, false)
      const dup = await t.app.inject({
        method: 'POST',
        url: '/admin/accounts',
        headers: admin.headers,
        payload: { email: 'other@example.com', username: 'newperson', password: PASSWORD },
      })
      assert.equal(problemOf(dup).code, 'CONFLICT')
      const list = await t.app.inject({
        method: 'GET',
        url: '/admin/accounts?limit=1',
        headers: admin.headers,
      })
      assert.equal(list.statusCode, 200, list.body)
      assert.equal(list.json().accounts.length, 1)
      assert.equal(typeof list.json().nextCursor, 'string')
      const all = await t.app.inject({ method: 'GET', url: '/admin/accounts', headers: admin.headers })
      assert.ok(all.json().accounts.some((a: { id: string }) => a.id === account.id))
      assert.equal(all.json().nextCursor, null)

      // The auth token alone: an admin sees the pool when no license is free, and looking takes none.
      const tokenOnly = { authorization: admin.headers.authorization ?? '' }
      const licenses = await t.app.inject({ method: 'GET', url: '/admin/licenses', headers: tokenOnly })
      assert.equal(licenses.statusCode, 200, licenses.body)
      assert.equal(licenses.json().total, 1000)
      assert.ok(
        licenses.json().sessions.some((s: { username: string }) => s.username === user.account.username),
      )
      const disable = await t.app.inject({
        method: 'PATCH',
        url: `/admin/accounts/${user.account.id}`,
        headers: admin.headers,
        payload: { disabled: true },
      })
      assert.equal(disable.statusCode, 200, disable.body)
      assert.equal(disable.json().account.disabled, true)
      const refused = await t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: user.headers })
      assert.equal(problemOf(refused).code, 'ACCOUNT_DISABLED')
      const after = await t.app.inject({ method: 'GET', url: '/admin/licenses', headers: admin.headers })
      assert.ok(
        !after.json().sessions.some((s: { username: string }) => s.username === user.account.username),
      )
      const enable = await t.app.inject({
        method: 'PATCH',
        url: `/admin/accounts/${user.account.id}`,
        headers: admin.headers,
        payload: { disabled: false },
      })
      assert.equal(enable.json().account.disabled, false)
      const self = await t.app.inject({
        method: 'PATCH',
        url: `/admin/accounts/${admin.account.id}`,
        headers: admin.headers,
        payload: { disabled: true },
      })
      assert.equal(problemOf(self).code, 'VALIDATION_FAILED')
      const unknown = await t.app.inject({
        method: 'PATCH',
        url: '/admin/accounts/ffffffffffffffffffffffff',
        headers: admin.headers,
        payload: { disabled: true },
      })
      assert.equal(problemOf(unknown).code, 'NOT_FOUND')
    })
  })
}

// The CLI against its own database (a child process cannot reach the harness's in-memory state).
for (const factory of processTargets()) {
  test(`tessera accounts passwd (stdin) and set-email on ${factory.name}`, async () => {
    const target = await factory.create()
    const env = target.env
    try {
      assert.equal((await cli(['migrate'], env, '')).code, 0)
      const created = await cli(
        ['accounts', 'create', '--email', 'cli@example.com', '--username', 'cliuser'],
        env,
        `${PASSWORD}\n`,
      )
      assert.equal(created.code, 0, created.stderr)
      const passwd = await cli(['accounts', 'passwd', 'cliuser'], env, 'a piped new password\nignored line\n')
      assert.equal(passwd.code, 0, passwd.stderr)
      assert.match(passwd.stdout, /cliuser: password set/)
      const tooShort = await cli(['accounts', 'passwd', 'cliuser'], env, 'short\n')
      assert.equal(tooShort.code, 2)
      assert.match(tooShort.stderr, /at least 10 characters/)
      const asArgument = await cli(['accounts', 'passwd', 'cliuser', 'a-password-argument'], env, '')
      assert.equal(asArgument.code, 2, 'never a password as an argument')
      const email = await cli(['accounts', 'set-email', 'cliuser', 'New@Example.com'], env, '')
      assert.equal(email.code, 0, email.stderr)
      assert.match(email.stdout, /new@example\.com/)
      const bad = await cli(['accounts', 'set-email', 'cliuser', 'not-an-email'], env, '')
      assert.equal(bad.code, 2)
      const unknown = await cli(['accounts', 'passwd', 'nobody'], env, 'a long enough password\n')
      assert.equal(unknown.code, 2)

      const config = loadConfig({ ...env, TESSERA_LOG_LEVEL: 'silent' })
      const app = await buildApp(config, { keys: await testKeys(), workers: false })
      try {
        const res = await app.inject({
          method: 'POST',
          url: '/account/login/',
          payload: { username: 'cliuser', password: 'a piped new password' },
        })
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(res.json().email, 'new@example.com')
      } finally {
        await app.close()
      }
    } finally {
      await target.cleanup()
    }
  })
}
