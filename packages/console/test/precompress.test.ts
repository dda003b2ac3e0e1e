// The build's brotli and gzip copies (scripts/precompress.ts, run by vite.config.ts after the
// bundle is written): every compressible file of dist/ has both, they decode to its bytes, and a
// real `tessera serve` sends them to a browser that accepts them.
// `npm test` builds first (pretest); run alone, build with `npm run build` before.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { request } from 'node:http'
import path from 'node:path'
import { describe, it } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { startTessera } from './support/server.ts'

const DIST = path.resolve(import.meta.dirname, '../dist')

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    return statSync(file).isDirectory() ? walk(file) : [file]
  })
}

describe('precompressed build', () => {
  it('wrote brotli and gzip copies of every script, style, page and decoder', () => {
    const files = walk(DIST).filter((f) => /\.(?:js|css|html|wasm)$/.test(f))
    const engine = files.filter((f) => /assets[/\\]engine-[\w-]+\.js$/.test(f))
    assert.equal(engine.length, 1, 'the viewer engine chunk is built')
    assert.ok(
      files.some((f) => f.endsWith(`draco${path.sep}draco_decoder.wasm`)),
      'the Draco decoder',
    )
    for (const file of files) {
      const bytes = readFileSync(file)
      const name = path.relative(DIST, file)
      assert.ok(existsSync(`${file}.br`) && existsSync(`${file}.gz`), `${name}: .br and .gz`)
      const br = readFileSync(`${file}.br`)
      const gz = readFileSync(`${file}.gz`)
      assert.deepEqual(brotliDecompressSync(br), bytes, `${name}.br decodes to the file`)
      assert.deepEqual(gunzipSync(gz), bytes, `${name}.gz decodes to the file`)
      assert.ok(br.length < bytes.length && gz.length < bytes.length, `${name}: smaller`)
    }
    // Maximum brotli quality: the engine's copy is well under its gzip -9 one.
    const [chunk = ''] = engine
    // The bounds trees' web worker (three-mesh-bvh's, viewer/bvh-worker.ts): a file of its own that
    // the engine starts by its URL (the console's CSP allows workers from 'self').
    const workers = files.filter((f) => /assets[/\\]generateMeshBVH\.worker-[\w-]+\.js$/.test(f))
    assert.equal(workers.length, 1, "the bounds trees' worker is built")
    assert.ok(readFileSync(chunk, 'utf8').includes(`/assets/${path.basename(workers[0] ?? '')}`))
    assert.ok(statSync(`${chunk}.br`).size < statSync(`${chunk}.gz`).size * 0.9)
  })
})

/** A raw GET (fetch would decode the body and hide Content-Length): status, headers, body bytes. */
function rawGet(url: string, acceptEncoding: string) {
  return new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
      })
      req.on('error', reject)
      req.end()
    },
  )
}

describe('precompressed build, served', { timeout: 120_000 }, () => {
  it('tessera serve sends the engine chunk as brotli, gzip or as it is, by Accept-Encoding', async () => {
    const engine = readdirSync(path.join(DIST, 'assets')).find((f) => /^engine-[\w-]+\.js$/.test(f))
    assert.ok(engine)
    const bytes = readFileSync(path.join(DIST, 'assets', engine))
    const server = await startTessera()
    try {
      const url = `${server.baseUrl}/assets/${engine}`
      for (const [accept, encoding] of [
        ['gzip, deflate, br, zstd', 'br'],
        ['gzip', 'gzip'],
        ['identity', undefined],
      ] as const) {
        const { headers, body } = await rawGet(url, accept)
        assert.equal(headers['content-encoding'], encoding, accept)
        assert.equal(Number(headers['content-length']), body.length, accept)
        assert.match(String(headers.vary), /accept-encoding/i)
        assert.equal(headers['cache-control'], 'public, max-age=31536000, immutable')
        const decoded = encoding === 'br' ? brotliDecompressSync(body) : encoding ? gunzipSync(body) : body
        assert.deepEqual(decoded, bytes, accept)
      }
    } finally {
      await server.stop()
    }
  })
})
