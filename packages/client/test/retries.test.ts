// Retries and Idempotency-Key (docs/sdk.md, "Retries and idempotency"): against small node:http
// servers that drop connections, answer 503 with Retry-After or never answer; and against a real
// `tessera serve` behind a proxy that loses the first answer of a create: one record, not two.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Tessera, TesseraError } from '@tessera/client'
import { retryPolicy } from '../src/retry.ts'
import { retryingFetch } from '../src/retrying-fetch.ts'
import { type Instance, startTessera, targetNames } from './support/server.ts'

interface Seen {
  method: string
  url: string
  key: string | undefined
  at: number
}

/** A loopback server whose answer to attempt n (from 0) is `answer(n, req, res)`. */
async function scripted(answer: (n: number, req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    req.resume()
    req.once('end', () => {
      const key = req.headers['idempotency-key']
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        key: typeof key === 'string' ? key : undefined,
        at: Date.now(),
      })
      answer(seen.length - 1, req, res)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, seen, close: () => closeServer(server) }
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}

const ok = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end('{"success":true}')
}

function fetcher(retries: number, timeoutMs = 30_000) {
  const fetch = retryingFetch(
    (input, init) => globalThis.fetch(input, init),
    retryPolicy({ retries, timeoutMs }),
  )
  return (url: string, init: RequestInit = {}) => fetch(new Request(url, init))
}

describe('retries against scripted servers', () => {
  test('503 with Retry-After (seconds, then an HTTP-date) is honoured, then the answer', async () => {
    const server = await scripted((n, _req, res) => {
      if (n === 0) res.writeHead(503, { 'retry-after': '1' }).end()
      else if (n === 1) res.writeHead(503, { 'retry-after': new Date(Date.now() + 1500).toUTCString() }).end()
      else ok(res)
    })
    try {
      const response = await fetcher(2)(`${server.url}/file/dir/private/`)
      assert.equal(response.status, 200)
      assert.equal(server.seen.length, 3)
      const [first, second, third] = server.seen.map((s) => s.at)
      const gap1 = (second ?? 0) - (first ?? 0)
      const gap2 = (third ?? 0) - (second ?? 0)
      assert.ok(gap1 >= 950 && gap1 < 2500, `first wait ${gap1} ms`)
      // An HTTP-date has whole seconds: 0.5 to 1.5 s from when it was written.
      assert.ok(gap2 >= 400 && gap2 < 2500, `second wait ${gap2} ms`)
    } finally {
      await server.close()
    }
  })

  test('retries: 0 sends once; the last 429 is answered as it is', async () => {
    const server = await scripted((_n, _req, res) => res.writeHead(429, { 'retry-after': '1' }).end())
    try {
      assert.equal((await fetcher(0)(`${server.url}/file/dir/private/`)).status, 429)
      assert.equal(server.seen.length, 1)
      const started = Date.now()
      assert.equal((await fetcher(1)(`${server.url}/file/dir/private/`)).status, 429)
      assert.equal(server.seen.length, 3)
      assert.ok(Date.now() - started < 3000)
    } finally {
      await server.close()
    }
  })

  test('a create whose connection drops is sent again with the same Idempotency-Key', async () => {
    const server = await scripted((n, req, res) => (n < 2 ? req.socket.destroy() : ok(res)))
    try {
      const started = Date.now()
      const response = await fetcher(2)(`${server.url}/annotation/create/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"file":"0123456789abcdef01234567","name":"n"}',
      })
      assert.equal(response.status, 200)
      assert.equal(server.seen.length, 3)
      const keys = new Set(server.seen.map((s) => s.key))
      assert.equal(keys.size, 1)
      assert.match([...keys][0] ?? '', /^[0-9a-f-]{36}$/)
      // Back-off 250 ms then 500 ms, each ±50%: well under 2 s in all.
      assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`)
    } finally {
      await server.close()
    }
  })

  test('a POST without a key is never sent twice; a refused connection is retried for a GET', async () => {
    const server = await scripted((_n, req) => req.socket.destroy())
    try {
      const update = fetcher(2)(`${server.url}/annotation/update/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      await assert.rejects(update, TypeError)
      assert.equal(server.seen.length, 1)
      assert.equal(server.seen[0]?.key, undefined)
    } finally {
      await server.close()
    }
    const started = Date.now()
    await assert.rejects(fetcher(2)(`${server.url}/file/dir/private/`), TypeError)
    // Two back-offs were waited (at least 125 + 250 ms) before the last refusal was answered.
    assert.ok(Date.now() - started >= 375, `${Date.now() - started} ms`)
  })

  for (const path of ['/scene/search', '/scene/search/files']) {
    test(`a search (${path}), a read sent with POST, is sent again without a key`, async () => {
      const server = await scripted((n, req, res) => (n === 0 ? req.socket.destroy() : ok(res)))
      try {
        const response = await fetcher(2)(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"file":"0123456789abcdef01234567","where":[{"node":"name","op":"eq","value":"x"}]}',
        })
        assert.equal(response.status, 200)
        assert.deepEqual(
          server.seen.map((s) => [s.method, s.url, s.key]),
          [
            ['POST', path, undefined],
            ['POST', path, undefined],
          ],
        )
      } finally {
        await server.close()
      }
    })
  }

  test('an attempt without an answer within timeoutMs is abandoned and retried', async () => {
    const server = await scripted((n, _req, res) => (n === 0 ? undefined : ok(res)))
    try {
      const started = Date.now()
      const response = await fetcher(1, 300)(`${server.url}/file/dir/private/`)
      assert.equal(response.status, 200)
      assert.equal(server.seen.length, 2)
      assert.ok(Date.now() - started < 2000)
    } finally {
      await server.close()
    }
  })
})

/**
 * A proxy to `target` that relays every request but, for the first request matching `lose`, waits
 * for the upstream answer and then destroys the client's socket instead of relaying it.
 */
async function losingProxy(target: string, lose: (req: IncomingMessage) => boolean) {
  let lost = 0
  const server = createServer((req, res) => {
    const upstream = new URL(req.url ?? '/', target)
    const forward = httpRequest(upstream, { method: req.method, headers: req.headers }, (answer) => {
      if (lost === 0 && lose(req)) {
        lost += 1
        answer.resume()
        answer.once('end', () => req.socket.destroy())
        return
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    forward.on('error', () => res.destroy())
    req.pipe(forward)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lost: () => lost,
    close: () => closeServer(server),
  }
}

for (const dialect of targetNames()) {
  describe(`a lost answer on a real server (${dialect})`, () => {
    let server: Instance
    before(async () => {
      server = await startTessera(dialect)
    })
    after(async () => server?.stop())

    test('an annotation and an upload whose answers were lost are made once', async () => {
      const creates = (req: IncomingMessage) =>
        req.method === 'POST' && (req.url === '/annotation/create/' || req.url === '/file/upload/')
      const proxy = await losingProxy(server.url, creates)
      const tessera = await Tessera.connect({ url: proxy.url, ...server.admin })
      try {
        const blob = new Blob(['solid lost\nendsolid lost\n'])
        const file = await tessera.files.upload(blob, { name: 'lost.stl', parent: '/lost' })
        assert.equal(proxy.lost(), 1, 'the first upload answer was lost')
        assert.equal(file.__v, 0, 'not a second revision')
        const listed = await tessera.files.list('/lost')
        assert.equal(listed.length, 1)
        const proxy2 = await losingProxy(server.url, creates)
        const again = await Tessera.connect({ url: proxy2.url, ...server.admin })
        try {
          const note = await again.annotations.create({ file: file._id, name: 'once' })
          assert.equal(proxy2.lost(), 1, 'the first create answer was lost')
          const notes = await again.annotations.list(file._id)
          assert.deepEqual(
            notes.map((n) => n._id),
            [note._id],
          )
        } finally {
          await again.close().catch(() => {})
          await proxy2.close()
        }
      } finally {
        await tessera.close().catch(() => {})
        await proxy.close()
      }
    })

    test('retries: 0 leaves a lost answer as a network error', async () => {
      const proxy = await losingProxy(
        server.url,
        (req) => req.method === 'POST' && req.url === '/annotation/create/',
      )
      const tessera = await Tessera.connect({ url: proxy.url, ...server.admin, retries: 0 })
      try {
        const file = await tessera.files.upload(new Blob(['solid kept\n']), { name: 'kept.stl' })
        await assert.rejects(tessera.annotations.create({ file: file._id, name: 'no retry' }), (error) => {
          assert.ok(error instanceof TesseraError)
          assert.equal(error.code, 'NETWORK_ERROR')
          return true
        })
      } finally {
        await tessera.close().catch(() => {})
        await proxy.close()
      }
    })
  })
}
