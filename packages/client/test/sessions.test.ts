// Licenses and sessions through the SDK against a real server: automatic keep-alive, 402 and
// superseded sessions as typed errors (never retried), close() freeing the license.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { NoLicenseAvailableError, SessionSupersededError, Tessera, type TesseraError } from '@tessera/client'
import { type Instance, startTessera } from './support/server.ts'

const PASSWORD = 'a long password for bob'

/** A fetch that counts the calls per method and path. */
function countingFetch() {
  const calls = new Map<string, number>()
  const fetch: typeof globalThis.fetch = (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init)
    const key = `${request.method} ${new URL(request.url).pathname}`
    calls.set(key, (calls.get(key) ?? 0) + 1)
    return globalThis.fetch(request)
  }
  return { fetch, calls }
}

describe('sessions and licenses (SQLite, one license, 4 s TTL)', () => {
  let server: Instance
  const open: Tessera[] = []

  before(async () => {
    server = await startTessera('sqlite', {
      TESSERA_LICENSES: '1',
      TESSERA_SESSION_TTL: '4s',
      TESSERA_SESSION_DELETE_DELAY: '0s',
    })
    await server.createAccount('bob', PASSWORD)
  })
  after(async () => {
    for (const t of open) await t.close().catch(() => {})
    await server?.stop()
  })

  test('the keep-alive timer renews the session at half its TTL', async () => {
    const admin = await Tessera.connect({ url: server.url, ...server.admin })
    open.push(admin)
    const first = admin.expiresAt?.getTime() ?? 0
    await new Promise((resolve) => setTimeout(resolve, 5_000)) // longer than the TTL
    assert.ok((admin.expiresAt?.getTime() ?? 0) > first, 'the session was renewed')
    assert.deepEqual(await admin.files.list(), [])
    await admin.close()
  })

  test('402 NO_LICENSE_AVAILABLE is a NoLicenseAvailableError, tried once; close() frees the license', async () => {
    const admin = await Tessera.connect({ url: server.url, ...server.admin })
    const counting = countingFetch()
    await assert.rejects(
      Tessera.connect({ url: server.url, username: 'bob', password: PASSWORD, fetch: counting.fetch }),
      (e: TesseraError) =>
        e instanceof NoLicenseAvailableError && e.status === 402 && e.code === 'NO_LICENSE_AVAILABLE',
    )
    assert.equal(counting.calls.get('POST /account/session'), 1, 'the SDK does not retry a 402')
    await admin.close()
    const bob = await Tessera.connect({ url: server.url, username: 'bob', password: PASSWORD })
    open.push(bob)
    assert.deepEqual(await bob.files.list(), [])
    await bob.close()
  })

  test('a newer session supersedes the older: SessionSupersededError, reported once by the keep-alive', async () => {
    const lost: TesseraError[] = []
    const counting = countingFetch()
    const older = await Tessera.connect({
      url: server.url,
      ...server.admin,
      fetch: counting.fetch,
      onSessionLost: (e) => lost.push(e),
    })
    const newer = await Tessera.connect({ url: server.url, ...server.admin })
    open.push(newer)
    await assert.rejects(
      older.files.list(),
      (e: TesseraError) => e instanceof SessionSupersededError && e.status === 401,
    )
    await new Promise((resolve) => setTimeout(resolve, 4_500)) // two keep-alive periods of the older
    assert.equal(lost.length, 1)
    assert.ok(lost[0] instanceof SessionSupersededError)
    assert.equal(older.sessionLost, lost[0])
    assert.equal(counting.calls.get('POST /account/session'), 1, 'the SDK never reconnects by itself')
    assert.equal(
      counting.calls.get('PUT /account/session'),
      2,
      'one keep-alive at connect, one that found the loss',
    )
    assert.deepEqual(await newer.files.list(), [])
    await older.close() // nothing to delete: the session is gone
    await newer.close()
  })
})

describe('signing out (SQLite, one license, the default 5-minute deletion delay)', () => {
  let server: Instance

  before(async () => {
    server = await startTessera('sqlite', { TESSERA_LICENSES: '1', TESSERA_LOGIN_MAX_FAILURES: '2' })
    await server.createAccount('bob', PASSWORD)
  })
  after(async () => {
    await server?.stop()
  })

  test('close() keeps the license for the deletion delay; logout() frees it at once', async () => {
    const first = await Tessera.connect({ url: server.url, ...server.admin })
    assert.equal(first.account?.username, server.admin.username, 'connect says who logged in')
    await first.close()
    await assert.rejects(
      Tessera.connect({ url: server.url, username: 'bob', password: PASSWORD }),
      NoLicenseAvailableError,
      'a deleted session holds its license for the delay',
    )
    // The same account takes its own license back (a new session supersedes the old one).
    const second = await Tessera.connect({ url: server.url, ...server.admin })
    await second.logout()
    const bob = await Tessera.connect({ url: server.url, username: 'bob', password: PASSWORD })
    assert.equal(bob.account?.email.startsWith('bob'), true)
    await bob.logout()
  })

  test('session: false takes no license and supersedes nothing; supersededSession says when one was', async () => {
    const backend = await Tessera.connect({ url: server.url, ...server.admin })
    assert.equal(backend.supersededSession, false)
    const tokenOnly = await Tessera.connect({ url: server.url, ...server.admin, session: false })
    assert.equal(tokenOnly.sessionToken, '')
    assert.deepEqual(await tokenOnly.webhooks.list(), [], 'the token-only routes answer')
    await assert.rejects(tokenOnly.files.list(), (e: TesseraError) => e.code === 'SESSION_MISSING')
    // Bob, with the pool full, can still use the token-only routes.
    const bob = await Tessera.connect({
      url: server.url,
      username: 'bob',
      password: PASSWORD,
      session: false,
    })
    assert.deepEqual(await bob.webhooks.list(), [])
    assert.deepEqual(await backend.files.list(), [], "the backend's session still works")
    await tokenOnly.logout()
    await tokenOnly.close()
    assert.deepEqual(await backend.files.list(), [], 'logout and close of a token-only client end nothing')
    const takeover = await Tessera.connect({ url: server.url, ...server.admin })
    assert.equal(takeover.supersededSession, true)
    await assert.rejects(backend.files.list(), SessionSupersededError)
    backend.stopKeepAlive()
    await takeover.logout()
  })

  test('stopKeepAlive() leaves the session working; a 429 carries retryAfter', async () => {
    const kept = await Tessera.connect({ url: server.url, ...server.admin, onSessionLost: () => {} })
    kept.stopKeepAlive()
    assert.deepEqual(await kept.files.list(), [], 'the session still works')
    await kept.logout()
    const wrong = () => Tessera.connect({ url: server.url, username: 'bob', password: 'not the password' })
    await assert.rejects(wrong(), (e: TesseraError) => e.status === 401)
    await assert.rejects(wrong(), (e: TesseraError) => e.status === 401)
    await assert.rejects(
      wrong(),
      (e: TesseraError) => e.status === 429 && typeof e.retryAfter === 'number' && e.retryAfter > 0,
    )
  })
})
