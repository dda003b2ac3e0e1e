// The console's precompressed assets (src/app/console.ts, `preCompressed`): the brotli or gzip copy the
// build wrote beside a file is sent to a client that accepts it (q-values honoured, q=0 refused),
// the file itself to one that does not; Vary, Content-Length, a per-encoding ETag, HEAD and Range,
// the cache policy and the CSP hold for every encoding.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { CONSOLE_CSP, consoleRoutes } from '../../src/app/console.ts'
import { installHttpKernel } from '../../src/platform/http.ts'

const INDEX = `<!doctype html><html><head><script type="module" src="/assets/index-abc.js"></script></head><body><div id="app"></div>${' '.repeat(400)}</body></html>`
const SCRIPT = `export const parts = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `part-${i}`))}\n`
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
const IMMUTABLE = 'public, max-age=31536000, immutable'

function write(dist: string, file: string, body: string): void {
  writeFileSync(path.join(dist, file), body)
  // Distinct from the real files: a test can tell which representation it got.
  writeFileSync(path.join(dist, `${file}.br`), brotliCompressSync(body))
  writeFileSync(path.join(dist, `${file}.gz`), gzipSync(body))
}

function decoded(res: LightMyRequestResponse): string {
  const encoding = res.headers['content-encoding']
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload).toString()
  if (encoding === 'gzip') return gunzipSync(res.rawPayload).toString()
  assert.equal(encoding, undefined)
  return res.body
}

describe('console precompressed assets', () => {
  let dist: string
  let app: FastifyInstance
  const get = (url: string, acceptEncoding?: string, extra: Record<string, string> = {}) =>
    app.inject({
      url,
      headers: {
        accept: 'text/html',
        ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
        ...extra,
      },
    })

  before(async () => {
    dist = mkdtempSync(path.join(os.tmpdir(), 'tessera-console-assets-'))
    mkdirSync(path.join(dist, 'assets'))
    write(dist, 'index.html', INDEX)
    write(dist, 'assets/index-abc.js', SCRIPT)
    writeFileSync(path.join(dist, 'assets', 'logo-abc.png'), PNG)
    app = Fastify()
    installHttpKernel(app, { bodyLimit: 1024 })
    assert.equal(await consoleRoutes(app, dist), true)
  })
  after(async () => {
    await app.close()
    rmSync(dist, { recursive: true, force: true })
  })

  it('sends brotli, then gzip, then identity, by what the client accepts', async () => {
    const cases: [string | undefined, string | undefined][] = [
      ['gzip, deflate, br, zstd', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0.5, gzip;q=0.9', 'gzip'],
      ['gzip;q=0.2, br', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
      ['identity', undefined],
      ['deflate', undefined],
      ['', undefined],
      [undefined, undefined],
    ]
    for (const [accept, expected] of cases) {
      const res = await get('/assets/index-abc.js', accept)
      assert.equal(res.statusCode, 200, String(accept))
      assert.equal(res.headers['content-encoding'], expected, String(accept))
      assert.equal(decoded(res), SCRIPT, String(accept))
      assert.equal(Number(res.headers['content-length']), res.rawPayload.length, String(accept))
      assert.match(String(res.headers['content-type']), /^text\/javascript|^application\/javascript/)
      assert.match(String(res.headers.vary), /accept-encoding/i, String(accept))
      assert.equal(res.headers['cache-control'], IMMUTABLE)
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP)
    }
    const br = await get('/assets/index-abc.js', 'br')
    const identity = await get('/assets/index-abc.js')
    assert.ok(br.rawPayload.length < identity.rawPayload.length / 2, 'brotli is smaller')
  })

  it('gives each encoding its own ETag, and 304 only for the same one', async () => {
    const br = await get('/assets/index-abc.js', 'br')
    const gz = await get('/assets/index-abc.js', 'gzip')
    const identity = await get('/assets/index-abc.js')
    const tags = new Set([br.headers.etag, gz.headers.etag, identity.headers.etag])
    assert.equal(tags.size, 3)
    const again = await get('/assets/index-abc.js', 'br', { 'if-none-match': String(br.headers.etag) })
    assert.equal(again.statusCode, 304)
    const other = await get('/assets/index-abc.js', undefined, { 'if-none-match': String(br.headers.etag) })
    assert.equal(other.statusCode, 200)
    assert.equal(other.body, SCRIPT)
  })

  it('answers HEAD with the length of what GET would send', async () => {
    for (const accept of ['br', 'gzip', 'identity']) {
      const full = await get('/assets/index-abc.js', accept)
      const head = await app.inject({
        method: 'HEAD',
        url: '/assets/index-abc.js',
        headers: { 'accept-encoding': accept },
      })
      assert.equal(head.statusCode, 200)
      assert.equal(head.rawPayload.length, 0)
      assert.equal(head.headers['content-length'], full.headers['content-length'], accept)
      assert.equal(head.headers['content-encoding'], full.headers['content-encoding'], accept)
      assert.match(String(head.headers.vary), /accept-encoding/i)
    }
  })

  it('serves ranges of the representation it selects', async () => {
    const identity = await get('/assets/index-abc.js', 'identity', { range: 'bytes=0-5' })
    assert.equal(identity.statusCode, 206)
    assert.equal(identity.body, SCRIPT.slice(0, 6))
    assert.equal(identity.headers['content-range'], `bytes 0-5/${Buffer.byteLength(SCRIPT)}`)
    const whole = await get('/assets/index-abc.js', 'br')
    const part = await get('/assets/index-abc.js', 'br', { range: 'bytes=0-5' })
    assert.equal(part.statusCode, 206)
    assert.equal(part.headers['content-encoding'], 'br')
    assert.deepEqual(part.rawPayload, whole.rawPayload.subarray(0, 6))
    assert.equal(part.headers['content-range'], `bytes 0-5/${whole.rawPayload.length}`)
  })

  it('serves index.html compressed at / and for client routes, never cached stale', async () => {
    for (const url of ['/', '/view/0123', '/index.html']) {
      const res = await get(url, 'gzip, br')
      assert.equal(res.statusCode, 200, url)
      assert.equal(res.headers['content-encoding'], 'br', url)
      assert.equal(decoded(res), INDEX, url)
      assert.match(String(res.headers['content-type']), /^text\/html/)
      assert.equal(res.headers['cache-control'], 'no-cache')
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP)
      assert.match(String(res.headers.vary), /accept-encoding/i)
      const plain = await get(url)
      assert.equal(plain.headers['content-encoding'], undefined)
      assert.equal(plain.body, INDEX)
    }
  })

  it('sends files with no compressed copy as they are, and no copy as a file of its own', async () => {
    const png = await get('/assets/logo-abc.png', 'br, gzip')
    assert.equal(png.statusCode, 200)
    assert.equal(png.headers['content-encoding'], undefined)
    assert.deepEqual(png.rawPayload, PNG)
    for (const url of ['/assets/index-abc.js.br', '/assets/index-abc.js.gz', '/index.html.br']) {
      const res = await app.inject({ url })
      assert.equal(res.statusCode, 404, url)
    }
  })
})
