// The bounds of live sessions (docs/live.md "Bounds"), every dialect: message size, binary frames,
// the first message, rates (cameras coalesced, other messages dropped), participants per file,
// connections per account, idle connections; and the Origin rule for cookie-authenticated upgrades.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import WebSocket from 'ws'
import { insertFileRow, shareFileRow, type Team, team } from '../support/file-rows.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'
import { joinLive, liveSocket } from '../support/live.ts'

const IDLE_MS = 600

for (const dialect of dialects()) {
  describe(`live session bounds on ${dialect.name}`, () => {
    let t: TestApp
    let base: string
    let m: Team
    before(async () => {
      t = await startApp(dialect, {
        licenses: 1000,
        liveParticipantsPerFile: 3,
        liveConnectionsPerAccount: 2,
        liveIdleMs: IDLE_MS,
        liveMessageRate: 10,
      })
      base = await t.app.listen({ port: 0, host: '127.0.0.1' })
      m = await team(t.app)
    })
    after(() => t.close())

    const freshFile = async () => {
      const fileId = await insertFileRow(t.app, m.owner.account.id)
      await shareFileRow(t.app, fileId, m.editor.account.id, 'editor')
      await shareFileRow(t.app, fileId, m.viewer.account.id, 'viewer')
      return fileId
    }

    test('an oversize message closes with MESSAGE_TOO_LARGE (1009); a binary frame or a first message that is not hello with 4400', async () => {
      const a = await joinLive(base, m.fileId, m.owner.headers)
      a.client.send({ type: 'selection', ids: ['x'.repeat(5000)] })
      assert.equal((await a.client.waitFor((x) => x.type === 'closed')).code, 'MESSAGE_TOO_LARGE')
      assert.equal((await a.client.closed).code, 1009)
      const b = await joinLive(base, m.fileId, m.owner.headers)
      b.client.ws.send(Buffer.from([1, 2, 3]))
      assert.equal((await b.client.waitFor((x) => x.type === 'closed')).code, 'BAD_MESSAGE')
      assert.equal((await b.client.closed).code, 4400)
      const c = await liveSocket(base, m.fileId, m.owner.headers)
      c.send({ type: 'ping' })
      assert.equal((await c.closed).code, 4400)
      // A malformed message after the welcome is answered and dropped; the connection stays.
      const d = await joinLive(base, m.fileId, m.owner.headers)
      d.client.send({ type: 'camera', position: [1, 2], target: [0, 0, 0] })
      assert.equal((await d.client.waitFor((x) => x.type === 'error')).code, 'BAD_MESSAGE')
      d.client.send({ type: 'ping' })
      await d.client.waitFor((x) => x.type === 'pong')
      d.client.close()
    })

    test('cameras are coalesced to the rate, the latest kept; other messages past the rate are dropped with RATE_LIMITED', async () => {
      const fileId = await freshFile()
      const a = await joinLive(base, fileId, m.owner.headers)
      const b = await joinLive(base, fileId, m.viewer.headers)
      const started = performance.now()
      for (let i = 0; i < 40; i++) a.client.send({ type: 'camera', position: [i, 0, 0], target: [0, 0, 0] })
      const last = await b.client.waitFor((x) => x.type === 'camera' && (x.position as number[])[0] === 39)
      const elapsed = performance.now() - started
      const cameras = b.client.messages.filter((x) => x.type === 'camera')
      // 40 sent at once: the first goes at once, the latest at the next 50 ms slot; nothing between.
      assert.ok(cameras.length <= 3, `${cameras.length} cameras relayed`)
      assert.ok(elapsed >= 40, `the latest came after ${elapsed} ms`)
      assert.ok(last)
      for (let i = 0; i < 40; i++) a.client.send({ type: 'ping' })
      const limited = await a.client.waitFor((x) => x.type === 'error')
      assert.equal(limited.code, 'RATE_LIMITED')
      await new Promise((resolve) => setTimeout(resolve, 200))
      const pongs = a.client.messages.filter((x) => x.type === 'pong').length
      assert.ok(pongs >= 18 && pongs <= 23, `${pongs} pongs for 40 pings at 10/s with bursts of 20`)
      a.client.close()
      b.client.close()
    })

    test('participants per file and connections per account are capped (4429)', async () => {
      const fileId = await freshFile()
      const one = await joinLive(base, fileId, m.owner.headers)
      const two = await joinLive(base, fileId, m.owner.headers)
      const third = await liveSocket(base, fileId, m.owner.headers)
      third.send({ type: 'hello' })
      assert.equal((await third.waitFor((x) => x.type === 'closed')).code, 'LIVE_CONNECTIONS_LIMIT')
      assert.equal((await third.closed).code, 4429)
      const three = await joinLive(base, fileId, m.viewer.headers)
      const fourth = await liveSocket(base, fileId, m.editor.headers)
      fourth.send({ type: 'hello' })
      assert.equal((await fourth.waitFor((x) => x.type === 'closed')).code, 'LIVE_FILE_FULL')
      assert.equal((await fourth.closed).code, 4429)
      // One leaves: room again.
      three.client.close()
      await one.client.waitFor((x) => x.type === 'left')
      const again = await joinLive(base, fileId, m.editor.headers)
      for (const x of [one, two, again]) x.client.close()
    })

    test('a client that answers nothing is closed after the idle time (4408); one that pongs stays', async () => {
      const url = `${base.replace(/^http/, 'ws')}/live/files/${m.fileId}`
      const silent = new WebSocket(url, { headers: m.owner.headers, autoPong: false })
      await new Promise((resolve) => silent.once('open', resolve))
      silent.send(JSON.stringify({ type: 'hello' }))
      const started = performance.now()
      const code = await new Promise<number>((resolve) => silent.once('close', resolve))
      assert.equal(code, 4408)
      const took = performance.now() - started
      assert.ok(took >= IDLE_MS * 0.9 && took < IDLE_MS * 3, `closed after ${took} ms`)
      const alive = await joinLive(base, m.fileId, m.owner.headers)
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2))
      alive.client.send({ type: 'ping' })
      await alive.client.waitFor((x) => x.type === 'pong')
      alive.client.close()
    })

    test('a cookie-authenticated upgrade needs an allowed Origin', async () => {
      const cookie = `jsonwebtoken=${m.owner.authToken}; X-Service-Session=${m.owner.sessionToken}`
      await assert.rejects(
        liveSocket(base, m.fileId, { cookie, origin: 'https://evil.example' }),
        (err: { status?: number; body?: string }) =>
          err.status === 403 && /CSRF_REJECTED/.test(err.body ?? ''),
      )
      await assert.rejects(
        liveSocket(base, m.fileId, { cookie }),
        (err: { status?: number }) => err.status === 403,
      )
      const own = await joinLive(base, m.fileId, { cookie, origin: base })
      own.client.close()
    })
  })
}
