// Brotli and gzip copies of the console's compressible files, written next to them (`x.js.br`,
// `x.js.gz`) at build time, so the server sends them as they are (`preCompressed` in
// packages/server/src/app/console.ts) and never compresses per request. Node's own zlib does both:
// brotli at its maximum quality (11, a 16 MB window) costs seconds once per build and nothing per
// request, and no compression package is needed (the output is the same a native `brotli -q 11`
// gives: zlib links the reference brotli encoder).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** Text and WebAssembly compress well; images (png, webp) and fonts (woff2) are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|wasm|txt|map|ico)$/
/** A copy is kept only when it saves at least this share of the file (else identity is as good). */
const MIN_SAVING = 0.05

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    return statSync(file).isDirectory() ? walk(file) : [file]
  })
}

export interface Compressed {
  file: string
  size: number
  br: number | null
  gz: number | null
}

async function compressOne(file: string): Promise<Compressed> {
  const bytes = readFileSync(file)
  const text = !file.endsWith('.wasm')
  const [br, gz] = await Promise.all([
    brotli(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        // The largest window browsers decode (the 'large window' extension is not for HTTP).
        [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_MAX_WINDOW_BITS,
        [constants.BROTLI_PARAM_MODE]: text ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzipAsync(bytes, { level: constants.Z_BEST_COMPRESSION, memLevel: 9 }),
  ])
  const keep = (out: Buffer, ext: string): number | null => {
    if (out.length > bytes.length * (1 - MIN_SAVING)) return null
    writeFileSync(`${file}${ext}`, out)
    return out.length
  }
  return { file, size: bytes.length, br: keep(br, '.br'), gz: keep(gz, '.gz') }
}

/** Compresses every compressible file under `dir` (a build's output), in parallel on libuv's pool. */
export async function precompress(dir: string): Promise<Compressed[]> {
  const files = walk(dir).filter((f) => COMPRESSIBLE.test(f))
  return Promise.all(files.map(compressOne))
}
