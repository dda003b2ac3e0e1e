// Every way a stream of GET /events/stream ends gives its per-account slot back, over real sockets,
// every dialect: a client that leaves while its token is being verified (held deterministically by
// a gate on the token service, at each of the two verifications of a stream request), a stream
// ended by its token's expiry, and one ended by the heartbeat (account disabled). After more such
// ends than the per-account limit, a normal stream still opens (200), not 429.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import net from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { TokenService } from '../../src/platform/tokens.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { sleep, until } from '../support/receiver.ts'
import { openStream, rawStream } from '../support/sse.ts'

const PER_ACCOUNT = 2
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/**
 * Holds the `nth` (1-based) call of `verifyAuthToken` made after it is set, until `release`. A
 * stream request verifies its token twice: in the authentication hook, then for its expiry.
 */
function holdVerification(tokens: TokenService, nth: number) {
  const original = tokens.verifyAuthToken.bind(tokens)
  let calls = 0
  let reach = () => {}
  const reached = new Promise<void>((resolve) => {
    reach = resolve
  })
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const held: TokenService['verifyAuthToken'] = async (token, now) => {
    calls += 1
    if (calls === nth) {
      reach()
      await released
    }
    return original(token, now)
  }
  Object.defineProperty(tokens, 'verifyAuthToken', { value: held, configurable: true, writable: true })
  return {
    reached,
    release,
    restore: () => {
      Reflect.deleteProperty(tokens, 'verifyAuthToken')
    },
  }
}

async function portOf(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const address = t.app.server.address()
  assert.ok(address && typeof address === 'object')
  return address.port
}

for (const dialect of dialects()) {
  describe(`event stream slots on ${dialect.name}`, () => {
    let t: TestApp
    let port: number
    let base: string
    before(async () => {
      t = await startApp(dialect, { licenses: 1000, streamsPerAccount: PER_ACCOUNT, streamHeartbeatMs: 100 })
      port = await portOf(t)
      base = `http://127.0.0.1:${port}`
    })
    after(async () => t.close())

    test('a client that leaves while its token is verified frees its slot', async () => {
      const a = await signedIn(t.app)
      // More tries than the limit, half of them leaving during each of the two verifications.
      for (let attempt = 0; attempt < PER_ACCOUNT * 3; attempt++) {
        const gate = holdVerification(t.app.ctx.tokens, (attempt % 2) + 1)
        try {
          const accepted = once(t.app.server, 'connection') as Promise<[net.Socket]>
          const client = net.connect(port, '127.0.0.1')
          client.on('error', () => {})
          const [serverSide] = await accepted
          client.write(
            `GET /events/stream HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${a.authToken}\r\n\r\n`,
          )
          await gate.reached
          client.destroy()
          // The server has seen the client go before the verification goes on.
          await once(serverSide, 'close')
          gate.release()
        } finally {
          gate.restore()
        }
      }
      await until('every slot to be freed', () => t.app.ctx.eventStream.stats().streams === 0)
      const streams = await Promise.all(
        Array.from({ length: PER_ACCOUNT }, () => openStream(base, '/events/stream', bearer(a.authToken))),
      )
      assert.deepEqual(
        streams.map((s) => `${s.status} ${s.text}`),
        streams.map(() => '200 '),
      )
      for (const s of streams) s.close()
      await until('the streams to close', () => t.app.ctx.eventStream.stats().streams === 0)
    })

    test('streams ended by their token expiry free their slots', async () => {
      const a = await signedIn(t.app)
      // Tokens that expire within a few seconds (exp has a one-second grain), read to their end. Not
      // within one: on a loaded CI machine opening the streams took longer, and an expired token is
      // refused before its stream opens.
      const short = await t.app.ctx.tokens.signAuthToken(a.account.id, 4000)
      const expiring = await Promise.all(
        Array.from({ length: PER_ACCOUNT }, () => rawStream(base, '/events/stream', short)),
      )
      await until('the streams to open', () => expiring.every((s) => s.received().includes('stream open')))
      for (const stream of expiring) {
        assert.match(await stream.readUntilClosed(10_000), /: auth token expired; reconnect/)
      }
      await until('the slots to be freed', () => t.app.ctx.eventStream.stats().streams === 0)
      const fresh = await openStream(base, '/events/stream', bearer(a.authToken))
      assert.equal(fresh.status, 200, fresh.text)
      fresh.close()
      await until('the stream to close', () => t.app.ctx.eventStream.stats().streams === 0)
    })

    test('streams ended by the heartbeat (account disabled) free their slots, even unread', async () => {
      const a = await signedIn(t.app)
      const held = await Promise.all(
        Array.from({ length: PER_ACCOUNT }, () => rawStream(base, '/events/stream', a.authToken)),
      )
      await until('the streams to open', () => held.every((s) => s.received().includes('stream open')))
      // The clients keep their sockets open and stop reading: the server must close them.
      for (const stream of held) stream.socket.pause()
      const setDisabled = (disabled: number) =>
        t.db.kysely.updateTable('accounts').set({ disabled }).where('id', '=', a.account.id).execute()
      await setDisabled(1)
      await until('the slots to be freed', () => t.app.ctx.eventStream.stats().streams === 0)
      for (const stream of held) {
        assert.match(await stream.readUntilClosed(5000), /: account disabled/)
      }
      await setDisabled(0)
      // The session cache of the disabled account may answer a moment longer.
      await sleep(50)
      const fresh = await until('a stream to open again', async () => {
        const s = await openStream(base, '/events/stream', bearer(a.authToken))
        if (s.status === 200) return s
        assert.equal(JSON.parse(s.text).code, 'ACCOUNT_DISABLED')
        return null
      })
      fresh.close()
      await until('the stream to close', () => t.app.ctx.eventStream.stats().streams === 0)
    })
  })
}
