// Slow clients over real sockets: trickled headers, a trickled JSON body and an upload below the
// minimum rate are cut off within their bounds (the upload leaving no file row and no blob), and
// connections beyond the cap are refused while the health check answers once they close.
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { request } from 'undici'
import { newAccount, signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp } from '../support/harness.ts'

const GIVE_UP_MS = 8000

interface Ended {
  received: string
  afterMs: number
}

/** A raw connection that sends `first`, then `drip` every `everyMs` until the server closes it. */
function trickle(port: number, first: string | Buffer, drip: string, everyMs: number): Promise<Ended> {
  return new Promise((resolve) => {
    const started = performance.now()
    const chunks: Buffer[] = []
    const socket = net.connect(port, '127.0.0.1', () => socket.write(first))
    const timer = setInterval(() => socket.writable && socket.write(drip), everyMs)
    // Without the bounds the server would wait for ever: the client gives up (and the test fails).
    const giveUp = setTimeout(() => socket.destroy(), GIVE_UP_MS)
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ received: Buffer.concat(chunks).toString('latin1'), afterMs: performance.now() - started })
    })
  })
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
  } catch {
    return []
  }
}

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const address = t.app.server.address()
  assert.ok(address && typeof address === 'object')
  return address.port
}

for (const dialect of dialects()) {
  describe(`slow clients on ${dialect.name}`, () => {
    let t: TestApp
    let port: number
    before(async () => {
      t = await startApp(dialect, {
        httpHeadersTimeoutMs: 1000,
        jsonBodyTimeoutMs: 1000,
        uploadMinBytesPerSecond: 10 * 1024,
        uploadRateWindowMs: 1000,
      })
      port = await listen(t)
    })
    after(() => t.close())

    test('a client trickling headers is cut off with 408 within the headers timeout', async () => {
      const ended = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n', 200)
      assert.match(ended.received, /^HTTP\/1\.1 408/)
      assert.ok(ended.afterMs < 3000, `closed after ${ended.afterMs} ms`)
      const silent = await trickle(port, '', '', 1000)
      assert.ok(silent.afterMs < 3000, `a silent connection closed after ${silent.afterMs} ms`)
    })

    test('a client trickling a JSON body is cut off with 408 within the JSON body timeout', async () => {
      const head =
        'POST /account/login/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n'
      const ended = await trickle(port, `${head}{"username":"`, 'a', 100)
      assert.match(ended.received, /^HTTP\/1\.1 408/)
      assert.match(ended.received, /content-type: application\/problem\+json/i)
      assert.match(ended.received, /"code":"REQUEST_TIMEOUT"/)
      assert.ok(ended.afterMs < 3000, `closed after ${ended.afterMs} ms`)
    })

    test('an upload below the minimum rate is cut off and leaves no file row or blob', async () => {
      const s = await signedIn(t.app)
      const boundary = 'slowboundary'
      const partHead =
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.stl"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n'
      const head =
        `POST /file/upload/ HTTP/1.1\r\nHost: x\r\nAuthorization: ${s.headers.authorization}\r\n` +
        `X-Service-Session: ${s.headers['x-service-session']}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 10000000\r\n\r\n`
      // A fast start (well above the rate), then 500 bytes a second: below 10 KiB/s.
      const ended = await trickle(port, `${head}${partHead}${'x'.repeat(64 * 1024)}`, 'y'.repeat(100), 200)
      assert.ok(ended.afterMs < 5000, `closed after ${ended.afterMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const rows = await t.db.kysely
        .selectFrom('files')
        .select('id')
        .where('owner_id', '=', s.account.id)
        .execute()
      assert.deepEqual(rows, [])
      const blobDir = t.config.storageUrl.replace(/^file:\/\//, '')
      assert.deepEqual(filesIn(blobDir), [])
      // A fast upload still works.
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    })
  })
}

for (const dialect of dialects()) {
  // The body deadline is long here: a connection that closes within seconds was closed because an
  // answer came before its body was read, not by the deadline.
  describe(`answers before the body is read on ${dialect.name}`, () => {
    const BODY_DEADLINE_MS = 5000
    const LOGIN_LIMIT = 2
    let t: TestApp
    let port: number
    before(async () => {
      t = await startApp(dialect, { jsonBodyTimeoutMs: BODY_DEADLINE_MS, loginMaxFailures: LOGIN_LIMIT })
      port = await listen(t)
    })
    after(() => t.close())

    const announcing = (requestLine: string) =>
      `${requestLine} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`

    for (const [name, requestLine, detail] of [
      ['a bad URL encoding (/%zz)', 'POST /%zz', /not a valid url component/],
      ['a 600-character path parameter', `POST /file/${'a'.repeat(600)}`, /exceeding the max param length/],
    ] as const) {
      test(`${name}: the 400 closes the connection while the body trickles`, async () => {
        // One byte a second: without the close, Node would read the rest of the announced body for
        // the next request on this connection, for as long as the client keeps sending.
        const ended = await trickle(port, announcing(requestLine), 'x', 1000)
        assert.match(ended.received, /^HTTP\/1\.1 400/)
        assert.match(ended.received, /\r\nconnection: close\r\n/i)
        assert.match(ended.received, /"code":"BAD_REQUEST"/)
        assert.match(ended.received, detail)
        assert.ok(ended.afterMs < 2000, `closed after ${ended.afterMs} ms`)
      })
    }

    test('after the failed-login limit tripped, a trickled login is still closed within seconds', async () => {
      const account = await newAccount(t.app)
      const login = (password: string) =>
        request(`http://127.0.0.1:${port}/account/login/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: account.username, password }),
        })
      for (let i = 0; i < LOGIN_LIMIT; i++) {
        const failed = await login('wrong password')
        assert.equal(failed.statusCode, 401)
        await failed.body.dump()
      }
      const refused = await login('wrong password')
      assert.equal(refused.statusCode, 429)
      // Answered once its body was read: the connection stays open for the next request.
      assert.equal(refused.headers.connection, 'keep-alive')
      await refused.body.dump()
      // Its username only comes with the body: the 429 waits for it, and the body deadline ends it.
      const ended = await trickle(port, announcing('POST /account/login/'), ' ', 1000)
      assert.match(ended.received, /^HTTP\/1\.1 408/)
      assert.ok(ended.afterMs < BODY_DEADLINE_MS + 1500, `closed after ${ended.afterMs} ms`)
    })

    test('an answer that does not read a declared body closes the connection; one that did keeps it', async () => {
      const ended = await trickle(port, announcing('GET /healthz'), 'x', 1000)
      assert.match(ended.received, /^HTTP\/1\.1 200/)
      assert.match(ended.received, /\r\nconnection: close\r\n/i)
      assert.ok(ended.afterMs < 2000, `closed after ${ended.afterMs} ms`)
      // A body read to its end, then refused: the connection stays open for the next request.
      const invalid = await request(`http://127.0.0.1:${port}/account/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"username":"someone"}',
      })
      assert.equal(invalid.statusCode, 400)
      assert.equal(invalid.headers.connection, 'keep-alive')
      assert.equal(
        invalid.headers['keep-alive'],
        `timeout=${Math.floor(t.config.httpKeepAliveTimeoutMs / 1000)}`,
      )
      await invalid.body.dump()
    })

    for (const [name, requestLine, status] of [
      ['a body past its limit (1 MiB)', 'POST /account/login/', 413],
      ['a request refused before its body is needed', 'PUT /webhook/', 401],
    ] as const) {
      test(`${name}, sent at full speed: the client reads the ${status}, the rest is read and dropped`, async () => {
        // Closed while the body still streamed in, the socket would answer it with a reset, and the
        // client would see a broken pipe instead of the answer already sent.
        const sent = await sendWhole(port, requestLine, 64 * 1024 * 1024)
        assert.equal(sent.error, '', `the client's write failed: ${sent.error}`)
        assert.match(sent.received, new RegExp(`^HTTP/1\\.1 ${status} `))
        assert.match(sent.received, /\r\nconnection: close\r\n/i)
        assert.ok(sent.afterMs < 20_000, `closed after ${sent.afterMs} ms`)
      })
    }
  })
}

/** Sends a JSON request declaring and sending `size` bytes as fast as the server reads them. */
function sendWhole(
  port: number,
  requestLine: string,
  size: number,
): Promise<{ received: string; error: string; afterMs: number }> {
  return new Promise((resolve) => {
    const started = performance.now()
    const chunks: Buffer[] = []
    let error = ''
    const socket = net.connect(port, '127.0.0.1')
    const chunk = Buffer.alloc(256 * 1024, 0x20)
    let sent = 0
    const pump = () => {
      while (sent < size) {
        const n = Math.min(chunk.length, size - sent)
        sent += n
        if (!socket.write(chunk.subarray(0, n))) return void socket.once('drain', pump)
      }
      socket.end()
    }
    socket.on('connect', () => {
      socket.write(
        `${requestLine} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      )
      pump()
    })
    socket.on('data', (data) => chunks.push(data))
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message
    })
    socket.on('close', () =>
      resolve({
        received: Buffer.concat(chunks).toString('latin1'),
        error,
        afterMs: performance.now() - started,
      }),
    )
  })
}

describe('connection cap', () => {
  let t: TestApp
  let port: number
  before(async () => {
    const [sqlite] = dialects()
    assert.ok(sqlite)
    t = await startApp(sqlite, { httpMaxConnections: 4 })
    port = await listen(t)
  })
  after(() => t.close())

  test('connections beyond the cap are refused; the health check answers once they close', async () => {
    const held = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const socket = net.connect(port, '127.0.0.1', () => resolve(socket))
          }),
      ),
    )
    // Let the server accept all four before the fifth arrives.
    await new Promise((resolve) => setTimeout(resolve, 200))
    const refused = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '', 1000)
    assert.equal(refused.received, '')
    assert.ok(refused.afterMs < 1000, `closed after ${refused.afterMs} ms`)
    for (const socket of held) socket.destroy()
    await new Promise((resolve) => setTimeout(resolve, 200))
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    assert.equal(health.status, 200)
    await health.arrayBuffer()
  })
})

describe('closing with idle connections', () => {
  test('a silent connection and one with half its headers do not hold the close', async () => {
    const [sqlite] = dialects()
    assert.ok(sqlite)
    const t = await startApp(sqlite, { httpHeadersTimeoutMs: 60_000 })
    const port = await listen(t)
    const silent = trickle(port, '', '', 60_000)
    const halfway = trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', '', 60_000)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = performance.now()
    await t.close()
    const took = performance.now() - started
    assert.ok(took < 1000, `close took ${took.toFixed(0)} ms`)
    assert.ok((await silent).afterMs < GIVE_UP_MS && (await halfway).afterMs < GIVE_UP_MS)
  })
})
