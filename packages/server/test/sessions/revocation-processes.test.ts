// Revocation across processes: right after a call that revokes credentials answers (disabling an
// account, a password change, a sign-out), every process refuses the old tokens, also one whose
// notifications lag behind (a loaded process, a slow link: here the other instance's database
// traffic is held back by a TCP proxy while the revocation is made): the revoking call waits for
// every process's acknowledgement (platform/db/row-sync.ts).
import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app/app.ts'
import { setAccountDisabled } from '../../src/modules/sessions/index.ts'
import { type Db, openDatabase } from '../../src/platform/db/index.ts'
import { PASSWORD, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, testKeys } from '../support/harness.ts'

const CONCURRENT = 24
const ROUNDS = 4
const HOLD_MS = 300

type Headers = Record<string, string>

const read = (app: FastifyInstance, headers: Headers) =>
  app.inject({ method: 'GET', url: '/file/dir/private/', headers })

/**
 * A TCP proxy to PostgreSQL that can hold back what the server sends (notifications and answers),
 * as a loaded process or a slow link does; what the client sends passes at once.
 */
class HoldingProxy {
  readonly server = net.createServer((client) => this.#connect(client))
  readonly #sockets = new Set<net.Socket>()
  #held: Array<() => void> | null = null
  readonly target: { host: string; port: number }

  constructor(target: { host: string; port: number }) {
    this.target = target
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return (this.server.address() as net.AddressInfo).port
  }

  #connect(client: net.Socket): void {
    const upstream = net.connect(this.target)
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => {
        this.#sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.on('data', (chunk: Buffer) => {
      if (this.#held) this.#held.push(() => client.write(chunk))
      else client.write(chunk)
    })
  }

  hold(): void {
    this.#held ??= []
  }

  release(): void {
    const held = this.#held ?? []
    this.#held = null
    for (const send of held) send()
  }

  async close(): Promise<void> {
    this.release()
    for (const socket of this.#sockets) socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

for (const dialect of dialects()) {
  describe(`revocation across instances on ${dialect.name}`, () => {
    let t: TestApp
    let db2: Db
    let other: FastifyInstance
    let proxy: HoldingProxy | undefined
    before(async () => {
      t = await startApp(dialect, { licenses: 1000 }, { workers: false })
      const schema = (t.db.description.match(/schema (\w+)/) ?? [])[1]
      let databaseUrl = t.config.databaseUrl
      if (databaseUrl) {
        const url = new URL(databaseUrl)
        proxy = new HoldingProxy({ host: url.hostname, port: Number(url.port || 5432) })
        url.host = `127.0.0.1:${await proxy.listen()}`
        databaseUrl = url.toString()
      }
      db2 = await openDatabase({ databaseUrl, dataDir: t.config.dataDir, pgSchema: schema })
      other = await buildApp(t.config, {
        db: db2,
        keys: await testKeys(),
        conversions: false,
        workers: false,
      })
      await other.ready()
    })
    after(async () => {
      await other.close()
      await db2.close()
      await proxy?.close()
      await t.close()
    })

    /** Signed in through `t`, the rows cached by both instances. */
    async function warmSignedIn() {
      const s = await signedIn(t.app)
      for (const app of [t.app, other, t.app, other])
        assert.equal((await read(app, s.headers)).statusCode, 200)
      return s
    }

    /**
     * Revokes through `t` while the other instance's database traffic is held for HOLD_MS
     * (PostgreSQL): the revoking call must not answer before the other instance has the change. Then
     * CONCURRENT requests with the old tokens go to each instance at once: every one is refused.
     */
    async function allRefused(revoke: () => Promise<void>, headers: Headers, code: string) {
      proxy?.hold()
      const release = setTimeout(() => proxy?.release(), HOLD_MS)
      const started = Date.now()
      try {
        await revoke()
      } finally {
        clearTimeout(release)
        proxy?.release()
      }
      const took = Date.now() - started
      if (proxy)
        assert.ok(took >= HOLD_MS - 20, `answered after ${took} ms, before the held instance had the change`)
      const answers = await Promise.all(
        Array.from({ length: 2 * CONCURRENT }, (_, i) => read(i % 2 === 0 ? t.app : other, headers)),
      )
      const accepted = answers.filter((res) => res.statusCode !== 401).length
      assert.equal(
        accepted,
        0,
        `${accepted} of ${answers.length} requests after the revocation were not refused`,
      )
      for (const res of answers) assert.equal(res.json().code, code)
    }

    test('disabling an account: both instances refuse at once', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const s = await warmSignedIn()
        await allRefused(
          async () => void (await setAccountDisabled(t.app.ctx, s.account.id, true)),
          s.headers,
          'ACCOUNT_DISABLED',
        )
      }
    })

    test('a password change: both instances refuse the old token at once', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const s = await warmSignedIn()
        const change = async () => {
          const res = await t.app.inject({
            method: 'PUT',
            url: '/account/password',
            headers: s.headers,
            payload: { currentPassword: PASSWORD, newPassword: 'another long password' },
          })
          assert.equal(res.statusCode, 200, res.body)
        }
        await allRefused(change, s.headers, 'TOKEN_REVOKED')
      }
    })

    test('a sign-out: both instances refuse the session at once', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const s = await warmSignedIn()
        const logout = async () => {
          const res = await t.app.inject({ method: 'POST', url: '/account/logout', headers: s.headers })
          assert.equal(res.json().ended, true)
        }
        await allRefused(logout, s.headers, 'SESSION_DELETED')
      }
    })
  })
}
