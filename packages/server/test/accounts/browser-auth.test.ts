// Browsers: cookie sign-in and sign-out, the CSRF rule for cookie writes, which credentials win when
// headers and cookies come together, CORS for listed origins and the CSP of HTML pages — on every dialect.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { newAccount, problemOf, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const CONSOLE = 'https://console.example.com'

/** name=value of every Set-Cookie of an answer, with its attributes. */
function setCookies(res: LightMyRequestResponse): Map<string, string> {
  const raw = res.headers['set-cookie']
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]
  return new Map(list.map((line) => [line.slice(0, line.indexOf('=')), line]))
}

function cookieValue(line: string | undefined): string {
  assert.ok(line)
  return line.slice(line.indexOf('=') + 1, line.indexOf(';'))
}

for (const dialect of dialects()) {
  describe(`browser sign-in on ${dialect.name}`, () => {
    let t: TestApp
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, corsOrigins: [CONSOLE] })
    })
    after(() => t.close())

    const csrf = { 'x-tessera-csrf': '1' }

    /** Cookie sign-in, then a session opened by cookie: the browser's cookie header. */
    async function browserSignIn(username: string, password: string) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/account/login/',
        headers: csrf,
        payload: { username, password, cookie: true },
      })
      assert.equal(res.statusCode, 200, res.body)
      const authToken = cookieValue(setCookies(res).get('jsonwebtoken'))
      const session = await t.app.inject({
        method: 'POST',
        url: '/account/session',
        headers: { ...csrf, cookie: `jsonwebtoken=${authToken}` },
      })
      assert.equal(session.statusCode, 200, session.body)
      const sessionToken = cookieValue(setCookies(session).get('X-Service-Session'))
      return {
        authToken,
        sessionToken,
        cookie: `jsonwebtoken=${authToken}; X-Service-Session=${sessionToken}`,
      }
    }

    test('cookie login sets an HttpOnly SameSite=Strict cookie and keeps the token out of the answer', async () => {
      const account = await newAccount(t.app)
      const res = await t.app.inject({
        method: 'POST',
        url: '/account/login/',
        headers: { ...csrf, cookie: 'X-Service-Session=stale' },
        payload: { username: account.username, password: account.password, cookie: true },
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { success: true, email: account.email, username: account.username })
      const cookies = setCookies(res)
      const auth = cookies.get('jsonwebtoken') ?? ''
      assert.match(auth, /^jsonwebtoken=ey/)
      assert.match(auth, /HttpOnly/)
      assert.match(auth, /SameSite=Strict/)
      assert.match(auth, /Path=\//)
      assert.doesNotMatch(auth, /Secure/, 'plain HTTP: no Secure flag')
      // The stale session cookie of an earlier sign-in is cleared.
      assert.match(cookies.get('X-Service-Session') ?? '', /Max-Age=0/)
      // The plain login keeps the specification's answer and sets no cookie.
      const plain = await t.app.inject({
        method: 'POST',
        url: '/account/login/',
        payload: { username: account.username, password: account.password },
      })
      assert.deepEqual(Object.keys(plain.json()).sort(), ['cookies', 'email', 'success', 'username'])
      assert.equal(plain.headers['set-cookie'], undefined)
    })

    test('GET /account/me says who the cookies (or headers) belong to; 401 once signed out', async () => {
      const account = await newAccount(t.app)
      const { cookie } = await browserSignIn(account.username, account.password)
      const me = await t.app.inject({ method: 'GET', url: '/account/me', headers: { cookie } })
      assert.equal(me.statusCode, 200, me.body)
      const answer = me.json() as {
        success: boolean
        account: { id: string; email: string; username: string; isAdmin: boolean }
      }
      assert.deepEqual(
        { ...answer, account: { ...answer.account, id: typeof answer.account.id } },
        {
          success: true,
          account: { id: 'string', email: account.email, username: account.username, isAdmin: false },
        },
      )
      const logout = await t.app.inject({
        method: 'POST',
        url: '/account/logout',
        headers: { cookie, ...csrf },
      })
      assert.equal(logout.statusCode, 200, logout.body)
      const after = await t.app.inject({ method: 'GET', url: '/account/me', headers: { cookie } })
      assert.equal(after.statusCode, 401)
      const anonymous = await t.app.inject({ method: 'GET', url: '/account/me' })
      assert.equal(anonymous.statusCode, 401)
    })

    test('cookie login without CSRF proof is 403 CSRF_REJECTED; a same-origin Origin passes', async () => {
      const account = await newAccount(t.app)
      const payload = { username: account.username, password: account.password, cookie: true }
      const refused = await t.app.inject({ method: 'POST', url: '/account/login/', payload })
      assert.equal(refused.statusCode, 403)
      assert.equal(problemOf(refused).code, 'CSRF_REJECTED')
      assert.equal(refused.headers['set-cookie'], undefined)
      const foreign = await t.app.inject({
        method: 'POST',
        url: '/account/login/',
        headers: { origin: 'https://evil.example' },
        payload,
      })
      assert.equal(problemOf(foreign).code, 'CSRF_REJECTED')
      const sameOrigin = await t.app.inject({
        method: 'POST',
        url: '/account/login/',
        headers: { origin: 'http://localhost:80' },
        payload,
      })
      assert.equal(sameOrigin.statusCode, 200, sameOrigin.body)
    })

    test('cookie writes need CSRF proof; cookie reads and header writes do not', async () => {
      const account = await newAccount(t.app)
      const { cookie } = await browserSignIn(account.username, account.password)
      const keepAlive = (headers: Record<string, string>) =>
        t.app.inject({ method: 'PUT', url: '/account/session', headers: { cookie, ...headers } })
      const refusals: Array<Record<string, string>> = [
        {},
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { referer: 'https://evil.example/page' },
        { origin: 'http://localhost:8080' }, // another port is another origin
      ]
      for (const headers of refusals) {
        const res = await keepAlive(headers)
        assert.equal(res.statusCode, 403, JSON.stringify(headers))
        assert.equal(problemOf(res).code, 'CSRF_REJECTED')
      }
      const proofs: Array<Record<string, string>> = [
        { 'x-tessera-csrf': '1' },
        { 'x-requested-with': 'XMLHttpRequest' },
        { origin: 'http://localhost:80' },
        { origin: CONSOLE },
        { referer: 'http://localhost:80/console/files' },
      ]
      for (const headers of proofs) {
        const res = await keepAlive(headers)
        assert.equal(res.statusCode, 200, `${JSON.stringify(headers)} ${res.body}`)
      }
      const read = await t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: { cookie } })
      assert.equal(read.statusCode, 200)
      const s = await signedIn(t.app)
      const byHeaders = await t.app.inject({
        method: 'PUT',
        url: '/account/session',
        headers: { ...s.headers, origin: 'https://evil.example' },
      })
      assert.equal(byHeaders.statusCode, 200, 'header credentials need no CSRF proof')
    })

    test('logout ends the session at once, frees its license and clears both cookies', async () => {
      const account = await newAccount(t.app)
      const { cookie } = await browserSignIn(account.username, account.password)
      const licenses = async () =>
        (await import('../../src/modules/sessions/index.ts')).licenseUsage(t.app.ctx)
      assert.ok((await licenses()).sessions.some((s) => s.username === account.username))
      const refused = await t.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie } })
      assert.equal(problemOf(refused).code, 'CSRF_REJECTED')
      const res = await t.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie, ...csrf } })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { success: true, ended: true })
      const cookies = setCookies(res)
      assert.match(cookies.get('jsonwebtoken') ?? '', /^jsonwebtoken=;.*Max-Age=0/)
      assert.match(cookies.get('X-Service-Session') ?? '', /^X-Service-Session=;.*Max-Age=0/)
      assert.ok(!(await licenses()).sessions.some((s) => s.username === account.username))
      const after = await t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: { cookie } })
      assert.equal(problemOf(after).code, 'SESSION_DELETED')
      // Again, with the session over: still 200, nothing ended, cookies cleared.
      const again = await t.app.inject({
        method: 'POST',
        url: '/account/logout',
        headers: { cookie, ...csrf },
      })
      assert.deepEqual(again.json(), { success: true, ended: false })
      const bare = await t.app.inject({ method: 'POST', url: '/account/logout' })
      assert.deepEqual(bare.json(), { success: true, ended: false })
      // Header clients may sign out too.
      const s = await signedIn(t.app)
      const byHeaders = await t.app.inject({ method: 'POST', url: '/account/logout', headers: s.headers })
      assert.deepEqual(byHeaders.json(), { success: true, ended: true })
      const gone = await t.app.inject({ method: 'GET', url: '/file/dir/private/', headers: s.headers })
      assert.equal(problemOf(gone).code, 'SESSION_DELETED')
    })

    test('mixed credentials: complete headers beside stray cookies win; ambiguous mixes are 400', async () => {
      const a = await signedIn(t.app)
      const b = await signedIn(t.app)
      const list = (headers: Record<string, string>) =>
        t.app.inject({ method: 'GET', url: '/file/dir/private/', headers })
      const openSession = (headers: Record<string, string>) =>
        t.app.inject({ method: 'POST', url: '/account/session', headers })
      const cases: Array<[string, Promise<LightMyRequestResponse>, number | string]> = [
        // The /docs case: headers after POST /account/session set the session cookie.
        [
          'headers + session cookie',
          list({ ...a.headers, cookie: `X-Service-Session=${a.sessionToken}` }),
          200,
        ],
        ['headers + auth cookie', list({ ...a.headers, cookie: `jsonwebtoken=${a.authToken}` }), 200],
        [
          "headers + another account's session cookie",
          list({ ...a.headers, cookie: `X-Service-Session=${b.sessionToken}` }),
          200,
        ],
        ['headers + unrelated cookie', list({ ...a.headers, cookie: 'theme=dark' }), 200],
        [
          'auth header + session cookie only',
          list({ authorization: `Bearer ${a.authToken}`, cookie: `X-Service-Session=${a.sessionToken}` }),
          'AMBIGUOUS_CREDENTIALS',
        ],
        [
          'session header + auth cookie',
          list({ 'x-service-session': a.sessionToken, cookie: `jsonwebtoken=${a.authToken}` }),
          'AMBIGUOUS_CREDENTIALS',
        ],
        [
          'two complete sets (other account)',
          list({ ...a.headers, cookie: `jsonwebtoken=${b.authToken}; X-Service-Session=${b.sessionToken}` }),
          'AMBIGUOUS_CREDENTIALS',
        ],
        [
          'token route: auth header + session cookie',
          openSession({
            authorization: `Bearer ${b.authToken}`,
            cookie: `X-Service-Session=${b.sessionToken}`,
          }),
          200,
        ],
        [
          'token route: auth header + auth cookie',
          openSession({ authorization: `Bearer ${b.authToken}`, cookie: `jsonwebtoken=${a.authToken}` }),
          'AMBIGUOUS_CREDENTIALS',
        ],
      ]
      for (const [name, pending, expected] of cases) {
        const res = await pending
        if (typeof expected === 'number') assert.equal(res.statusCode, expected, `${name}: ${res.body}`)
        else {
          assert.equal(res.statusCode, 400, name)
          assert.equal(problemOf(res).code, expected, name)
        }
      }
      // Ignored cookies are not renewed: keep-alive by headers sets no cookie.
      const keepAlive = await t.app.inject({
        method: 'PUT',
        url: '/account/session',
        headers: { ...a.headers, cookie: `X-Service-Session=${a.sessionToken}` },
      })
      assert.equal(keepAlive.statusCode, 200, keepAlive.body)
      assert.equal(keepAlive.headers['set-cookie'], undefined)
    })

    test('CORS over real HTTP: listed origins get credentials, others no CORS header', async () => {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      const preflight = (origin: string) =>
        fetch(`${address}/file/dir/private/`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'DELETE',
            'access-control-request-headers': 'x-tessera-csrf, content-type',
          },
        })
      const allowed = await preflight(CONSOLE)
      assert.equal(allowed.status, 204)
      assert.equal(allowed.headers.get('access-control-allow-origin'), CONSOLE)
      assert.equal(allowed.headers.get('access-control-allow-credentials'), 'true')
      assert.match(allowed.headers.get('access-control-allow-methods') ?? '', /DELETE/)
      assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /X-Tessera-CSRF/i)
      const foreign = await preflight('https://evil.example')
      assert.equal(foreign.headers.get('access-control-allow-origin'), null)
      assert.equal(foreign.headers.get('access-control-allow-credentials'), null)
      const s = await signedIn(t.app)
      const simple = await fetch(`${address}/file/dir/private/`, {
        headers: { ...s.headers, origin: CONSOLE },
      })
      assert.equal(simple.status, 200)
      assert.equal(simple.headers.get('access-control-allow-origin'), CONSOLE)
      assert.match(simple.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/i)
      assert.match(simple.headers.get('vary') ?? '', /Origin/i)
      const unlisted = await fetch(`${address}/file/dir/private/`, {
        headers: { ...s.headers, origin: 'https://evil.example' },
      })
      assert.equal(unlisted.headers.get('access-control-allow-origin'), null)
    })

    test('HTML pages carry the Content-Security-Policy; JSON answers do not', async () => {
      const docs = await t.app.inject({ method: 'GET', url: '/docs/' })
      assert.equal(docs.statusCode, 200)
      assert.match(String(docs.headers['content-type']), /^text\/html/)
      const csp = String(docs.headers['content-security-policy'])
      assert.match(csp, /default-src 'none'/)
      assert.match(csp, /script-src 'self'/)
      assert.match(csp, /frame-ancestors 'none'/)
      const json = await t.app.inject({ method: 'GET', url: '/healthz' })
      assert.equal(json.headers['content-security-policy'], undefined)
    })
  })
}
