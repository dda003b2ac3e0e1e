import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { request } from 'undici'
import { closeDeliveryAgents, createDeliveryAgent } from '../../src/delivery/agent.ts'
import { type AttemptInput, parseRetryAfter, sendAttempt } from '../../src/delivery/attempt.ts'
import { TargetRefused } from '../../src/delivery/ssrf.ts'

interface Seen {
  path: string
  host: string | undefined
  headers: IncomingMessage['headers']
  body: string
}

const seen: Seen[] = []
const bigBodyClosedEarly: boolean[] = []
let server: Server
let base: string
let port: number

function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extra })
  res.end(JSON.stringify(body))
}

// One loopback receiver that misbehaves in every way the engine must survive, chosen by path.
function receiver(req: IncomingMessage, res: ServerResponse, body: string): void {
  seen.push({ path: req.url ?? '', host: req.headers.host, headers: req.headers, body })
  switch (req.url) {
    case '/ok':
      json(res, 200, { success: true })
      return
    case '/ok-charset':
      res.writeHead(200, { 'content-type': 'Application/JSON; charset=utf-8' })
      res.end('{"success":true,"extra":[1,2,3]}')
      return
    case '/500':
      json(res, 500, { success: true }, { 'retry-after': '30' })
      return
    case '/hang':
      return // never answers
    case '/hang-body':
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"success":')
      return
    case '/reset':
      req.socket.destroy()
      return
    case '/redirect':
      res.writeHead(302, { location: '/ok' })
      res.end()
      return
    case '/text':
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('{"success":true}')
      return
    case '/no-content-type':
      res.writeHead(200)
      res.end('{"success":true}')
      return
    case '/false':
      json(res, 200, { success: false })
      return
    case '/truthy':
      json(res, 200, { success: 'true' })
      return
    case '/array':
      json(res, 200, [{ success: true }])
      return
    case '/not-json':
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('OK')
      return
    case '/429-seconds':
      json(res, 429, { error: 'slow down' }, { 'retry-after': '120' })
      return
    case '/429-date':
      json(res, 429, {}, { 'retry-after': new Date(Date.now() + 90_000).toUTCString() })
      return
    case '/503':
      json(res, 503, {}, { 'retry-after': '7' })
      return
    case '/410':
      json(res, 410, { error: 'gone' })
      return
    case '/big':
    case '/big-500': {
      // 32 MiB of valid JSON (more than socket buffers hold): the client must stop after 64 KiB
      // and drop the connection, so the server never finishes writing.
      res.writeHead(req.url === '/big' ? 200 : 500, { 'content-type': 'application/json' })
      res.on('close', () => bigBodyClosedEarly.push(!res.writableFinished))
      res.write(`{"success":true,"pad":"`)
      const chunk = 'x'.repeat(16 * 1024)
      let sent = 0
      const pump = (): void => {
        while (sent < 2048) {
          sent++
          if (!res.write(chunk)) {
            res.once('drain', pump)
            return
          }
        }
        res.end('"}')
      }
      pump()
      return
    }
    case '/utf8':
      // 3-byte characters straddling the 4 KiB excerpt boundary.
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
      res.end('€'.repeat(2000))
      return
    default:
      json(res, 404, { success: false })
      return
  }
}

function input(path: string, overrides: Partial<AttemptInput> = {}): AttemptInput {
  return {
    url: `${base}${path}`,
    body: JSON.stringify({ event: 'file_uploaded', uuid: 'u-1' }),
    headers: { 'x-service-token': '$2b$10$abc' },
    timeoutMs: 2_000,
    allowPrivate: true,
    ...overrides,
  }
}

before(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (c: Buffer) => parts.push(c))
    req.on('end', () => receiver(req, res, Buffer.concat(parts).toString('utf8')))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  port = (server.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
})

after(async () => {
  server.closeAllConnections()
  server.close()
  await closeDeliveryAgents()
})

describe('sendAttempt against real receivers', () => {
  it('succeeds on 200 + application/json + success:true and sends the body and headers', async () => {
    const r = await sendAttempt(input('/ok'))
    assert.deepEqual(
      { ok: r.ok, status: r.status, errorCode: r.errorCode, errorMessage: r.errorMessage, gone: r.gone },
      { ok: true, status: 200, errorCode: null, errorMessage: null, gone: false },
    )
    assert.equal(r.responseExcerpt, '{"success":true}')
    assert.equal(r.retryAfterMs, null)
    assert.ok(r.durationMs >= 0 && r.durationMs < 2_000)
    const got = seen.findLast((s) => s.path === '/ok')
    assert.ok(got)
    assert.equal(got.body, '{"event":"file_uploaded","uuid":"u-1"}')
    assert.equal(got.headers['content-type'], 'application/json')
    assert.equal(got.headers['x-service-token'], '$2b$10$abc')
  })

  it('accepts media type parameters and any case', async () => {
    const r = await sendAttempt(input('/ok-charset'))
    assert.equal(r.ok, true, r.errorMessage ?? '')
  })

  it('500 is E_STATUS, and Retry-After is ignored outside 429/503', async () => {
    const r = await sendAttempt(input('/500'))
    assert.equal(r.ok, false)
    assert.equal(r.status, 500)
    assert.equal(r.errorCode, 'E_STATUS')
    assert.equal(r.retryAfterMs, null)
    assert.equal(r.responseExcerpt, '{"success":true}')
  })

  it('a receiver that never answers times out within the budget', async () => {
    const r = await sendAttempt(input('/hang', { timeoutMs: 300 }))
    assert.equal(r.errorCode, 'E_TIMEOUT')
    assert.equal(r.status, null)
    assert.ok(r.durationMs >= 280 && r.durationMs < 1_500, `took ${r.durationMs} ms`)
  })

  it('the timeout also covers a body that stalls after the headers', async () => {
    const r = await sendAttempt(input('/hang-body', { timeoutMs: 300 }))
    assert.equal(r.errorCode, 'E_TIMEOUT')
    assert.equal(r.status, 200)
    assert.equal(r.ok, false)
    assert.ok(r.durationMs < 1_500, `took ${r.durationMs} ms`)
  })

  it('a reset socket is E_CONNECT', async () => {
    const r = await sendAttempt(input('/reset'))
    assert.equal(r.errorCode, 'E_CONNECT')
    assert.equal(r.status, null)
    assert.ok(r.errorMessage)
  })

  it('a refused connection is E_CONNECT', async () => {
    const closed = createServer()
    closed.listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const freePort = (closed.address() as AddressInfo).port
    closed.close()
    await once(closed, 'close')
    const r = await sendAttempt(input('/', { url: `http://127.0.0.1:${freePort}/` }))
    assert.equal(r.errorCode, 'E_CONNECT')
    assert.equal(r.errorMessage, 'connection refused')
  })

  it('redirects are not followed and count as E_STATUS', async () => {
    const before = seen.filter((s) => s.path === '/ok').length
    const r = await sendAttempt(input('/redirect'))
    assert.equal(r.status, 302)
    assert.equal(r.errorCode, 'E_STATUS')
    assert.match(r.errorMessage ?? '', /redirects are not followed/)
    assert.equal(seen.filter((s) => s.path === '/ok').length, before, 'the Location was fetched')
  })

  it('text/plain or no content type is E_CONTENT_TYPE even with a valid body', async () => {
    assert.equal((await sendAttempt(input('/text'))).errorCode, 'E_CONTENT_TYPE')
    assert.equal((await sendAttempt(input('/no-content-type'))).errorCode, 'E_CONTENT_TYPE')
  })

  it('success false, non-boolean success, arrays and non-JSON are E_BODY', async () => {
    for (const path of ['/false', '/truthy', '/array', '/not-json']) {
      const r = await sendAttempt(input(path))
      assert.equal(r.errorCode, 'E_BODY', path)
      assert.equal(r.status, 200)
      assert.equal(r.ok, false)
    }
  })

  it('429 with Retry-After seconds', async () => {
    const r = await sendAttempt(input('/429-seconds'))
    assert.equal(r.errorCode, 'E_STATUS')
    assert.equal(r.retryAfterMs, 120_000)
  })

  it('429 with Retry-After as an HTTP-date', async () => {
    const r = await sendAttempt(input('/429-date'))
    assert.equal(r.status, 429)
    assert.ok(
      r.retryAfterMs !== null && r.retryAfterMs > 80_000 && r.retryAfterMs <= 90_000,
      `${r.retryAfterMs}`,
    )
  })

  it('503 with Retry-After', async () => {
    const r = await sendAttempt(input('/503'))
    assert.equal(r.retryAfterMs, 7_000)
  })

  it('410 marks the endpoint as gone', async () => {
    const r = await sendAttempt(input('/410'))
    assert.equal(r.errorCode, 'E_STATUS')
    assert.equal(r.gone, true)
  })

  it('reads at most 64 KiB and drops the connection (E_BODY, 4 KiB excerpt)', async () => {
    bigBodyClosedEarly.length = 0
    const r = await sendAttempt(input('/big'))
    assert.equal(r.status, 200)
    assert.equal(r.errorCode, 'E_BODY')
    assert.match(r.errorMessage ?? '', /exceeds/)
    assert.equal(Buffer.byteLength(r.responseExcerpt), 4096)
    assert.ok(r.responseExcerpt.startsWith('{"success":true,"pad":"xxx'))
    const r500 = await sendAttempt(input('/big-500'))
    assert.equal(r500.errorCode, 'E_STATUS')
    // The server must see its 32 MiB responses cut short.
    for (let i = 0; i < 50 && bigBodyClosedEarly.length < 2; i++)
      await new Promise((ok) => setTimeout(ok, 20))
    assert.deepEqual(bigBodyClosedEarly, [true, true])
  })

  it('the excerpt never ends in a broken UTF-8 character', async () => {
    const r = await sendAttempt(input('/utf8'))
    assert.equal(r.responseExcerpt, '€'.repeat(1365))
  })

  it('a name that does not resolve is E_DNS', async () => {
    const r = await sendAttempt(input('/', { url: 'http://nowhere.invalid/hook' }))
    assert.equal(r.errorCode, 'E_DNS')
    assert.equal(r.status, null)
  })
})

describe('SSRF policy at delivery time', () => {
  it('allowPrivate=false refuses a loopback receiver with E_SSRF; allowPrivate=true reaches it', async () => {
    const count = (): number => seen.filter((s) => s.path === '/ok').length
    const before = count()
    for (const url of [`${base}/ok`, `http://localhost:${port}/ok`, `http://[::ffff:127.0.0.1]:${port}/ok`]) {
      const refused = await sendAttempt(input('/ok', { url, allowPrivate: false }))
      assert.equal(refused.errorCode, 'E_SSRF', url)
      assert.equal(refused.status, null)
    }
    assert.equal(count(), before, 'a refused target must not be contacted')
    const allowed = await sendAttempt(input('/ok', { allowPrivate: true }))
    assert.equal(allowed.ok, true)
    assert.equal(count(), before + 1)
  })

  it('connects to the vetted address while Host stays the URL host name', async () => {
    // receiver.test does not exist in real DNS: only the vetted (pinned) address can be used.
    let lookups = 0
    const lookup = async () => {
      lookups++
      return [{ address: '127.0.0.1', family: 4 }]
    }
    const r = await sendAttempt(input('/ok', { url: `http://receiver.test:${port}/ok`, lookup }))
    assert.equal(r.ok, true, r.errorMessage ?? '')
    assert.equal(lookups, 1)
    assert.equal(seen.at(-1)?.host, `receiver.test:${port}`)
  })

  it('the strict agent itself refuses private answers at connect time', async () => {
    const agent = createDeliveryAgent({ allowPrivate: false })
    try {
      await assert.rejects(
        request(`http://localhost:${port}/ok`, { dispatcher: agent, method: 'POST', body: '{}' }),
        (err: unknown) => err instanceof TargetRefused && err.code === 'E_SSRF',
      )
    } finally {
      await agent.close()
    }
  })
})

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  it('parses seconds and HTTP-dates, rejects junk', () => {
    assert.equal(parseRetryAfter('0', now), 0)
    assert.equal(parseRetryAfter(' 15 ', now), 15_000)
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000)
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0)
    assert.equal(parseRetryAfter('-5', now), null)
    assert.equal(parseRetryAfter('soon', now), null)
    assert.equal(parseRetryAfter(undefined, now), null)
  })
})
