// The build's brotli and gzip copies (scripts/precompress.ts, run by vite.config.ts after the
// bundle is written): every compressible file of dist/ has both, and they decode to its bytes.
// `npm test` builds first (pretest); run alone, build with `npm run build` before.
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'

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
    assert.ok(statSync(`${chunk}.br`).size < statSync(`${chunk}.gz`).size * 0.9)
  })
})
