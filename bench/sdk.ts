// SDK upload benchmark (`npm run bench:sdk`): a 1 GiB file (a valid binary STL header, then bulk
// bytes) uploaded to a real `tessera serve --no-workers` (no conversion runs) through
// @tessera/client (uploadPath: fetch with a streaming multipart body) and through a raw undici
// stream upload of the same file. Each upload runs in a fresh child process that samples its own
// RSS, so the figures are the uploading process's: throughput (MiB/s), and RSS growth over the
// process's baseline before the upload (peak − before). Runs are interleaved, medians reported.
//
//   npm run bench:sdk -- [--runs 2] [--size-mib 1024]
//
// Targets: SDK throughput >= 0.8x raw, SDK RSS growth < 64 MiB. --check exits non-zero on a miss.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Tessera, uploadPath } from '@tessera/client/node'
import { request } from 'undici'
import { record } from './results.ts'

const MiB = 1024 * 1024
const here = fileURLToPath(import.meta.url)
const BIN = fileURLToPath(import.meta.resolve('@tessera/server/bin/tessera-server.js'))

interface Measured {
  kind: 'sdk' | 'raw'
  bytes: number
  ms: number
  rssBefore: number
  rssPeak: number
  fileId: string
}

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '2' },
    'size-mib': { type: 'string', default: '1024' },
    check: { type: 'boolean', default: false },
    child: { type: 'string' },
    url: { type: 'string' },
    token: { type: 'string' },
    file: { type: 'string' },
  },
})

if (args.child)
  await child(args.child as 'sdk' | 'raw', String(args.url), String(args.token), String(args.file))
else await main()

/** One upload in this process, RSS sampled every 20 ms; prints the measurement as JSON. */
async function child(kind: 'sdk' | 'raw', url: string, token: string, file: string): Promise<void> {
  const tessera = await Tessera.connect({ url, authToken: token, keepAlive: false })
  global.gc?.()
  const rssBefore = process.memoryUsage.rss()
  let rssPeak = rssBefore
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss())
  }, 20)
  const started = performance.now()
  const name = `bench-${kind}-${Date.now()}.stl`
  const fileId =
    kind === 'sdk'
      ? (await uploadPath(tessera, file, { name }))._id
      : await rawUpload(url, tessera.authToken, tessera.sessionToken, file, name)
  const ms = performance.now() - started
  clearInterval(sampler)
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss())
  const measured: Measured = { kind, bytes: statSync(file).size, ms, rssBefore, rssPeak, fileId }
  await tessera.files.delete(fileId)
  await tessera.close()
  process.stdout.write(`${JSON.stringify(measured)}\n`)
}

/** The baseline: undici.request with a multipart body streamed from the file by hand. */
async function rawUpload(
  url: string,
  auth: string,
  session: string,
  file: string,
  name: string,
): Promise<string> {
  const boundary = `----raw${Date.now()}`
  const head = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`
  const tail = `\r\n--${boundary}--\r\n`
  async function* body() {
    yield Buffer.from(head)
    yield* createReadStream(file, { highWaterMark: 256 * 1024 })
    yield Buffer.from(tail)
  }
  const answer = await request(`${url}/file/upload/`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${auth}`,
      'x-service-session': session,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    body: Readable.from(body()),
  })
  const json = (await answer.body.json()) as { file?: { _id: string } }
  if (answer.statusCode !== 200 || !json.file) throw new Error(`raw upload: HTTP ${answer.statusCode}`)
  return json.file._id
}

async function main(): Promise<void> {
  const runs = Number(args.runs)
  const size = Number(args['size-mib']) * MiB
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-sdk-'))
  let server: ChildProcess | undefined
  try {
    const file = path.join(dir, 'big.stl')
    writeBigStl(file, size)
    const started = await startServer(path.join(dir, 'data'))
    server = started.child
    const login = await Tessera.connect({ url: started.url, ...started.admin, keepAlive: false })
    const token = login.authToken
    await login.close()
    const results: Measured[] = []
    for (let run = 0; run < runs; run++) {
      for (const kind of ['raw', 'sdk'] as const) {
        const measured = await runChild(kind, started.url, token, file)
        console.log(
          `${kind} run ${run + 1}: ${(measured.bytes / MiB / (measured.ms / 1000)).toFixed(0)} MiB/s, RSS +${((measured.rssPeak - measured.rssBefore) / MiB).toFixed(1)} MiB`,
        )
        results.push(measured)
      }
    }
    report(results, args.check === true)
  } finally {
    server?.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}

function report(results: Measured[], check: boolean): void {
  const median = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b)
    const mid = (sorted.length - 1) / 2
    return ((sorted[Math.floor(mid)] ?? 0) + (sorted[Math.ceil(mid)] ?? 0)) / 2
  }
  const of = (kind: 'sdk' | 'raw') => results.filter((r) => r.kind === kind)
  const rate = (kind: 'sdk' | 'raw') => median(of(kind).map((r) => r.bytes / MiB / (r.ms / 1000)))
  const growth = (kind: 'sdk' | 'raw') => median(of(kind).map((r) => (r.rssPeak - r.rssBefore) / MiB))
  const ratio = rate('sdk') / rate('raw')
  console.log(
    `\nfile: ${((of('sdk')[0]?.bytes ?? 0) / MiB).toFixed(0)} MiB, ${of('sdk').length} runs each (medians)`,
  )
  console.log(`raw undici: ${rate('raw').toFixed(0)} MiB/s, RSS growth ${growth('raw').toFixed(1)} MiB`)
  console.log(`SDK:        ${rate('sdk').toFixed(0)} MiB/s, RSS growth ${growth('sdk').toFixed(1)} MiB`)
  console.log(`throughput ratio SDK/raw: ${ratio.toFixed(2)} (target >= 0.8); SDK RSS growth target < 64 MiB`)
  const r = (n: number) => Number(n.toFixed(1))
  const runsEach = of('sdk').length
  record('sdk', [
    {
      metric: 'throughput',
      value: r(rate('raw')),
      unit: 'MiB/s',
      system: 'raw undici stream',
      runs: runsEach,
    },
    {
      metric: 'rss_growth',
      value: r(growth('raw')),
      unit: 'MiB',
      system: 'raw undici stream',
      runs: runsEach,
    },
    {
      metric: 'throughput',
      value: r(rate('sdk')),
      unit: 'MiB/s',
      system: 'sdk uploadPath',
      baseline: 'raw undici stream',
      ratio: Number(ratio.toFixed(2)),
      target: 0.8,
      runs: runsEach,
    },
    {
      metric: 'rss_growth',
      value: r(growth('sdk')),
      unit: 'MiB',
      system: 'sdk uploadPath',
      target: 64,
      runs: runsEach,
    },
  ])
  if (check && (ratio < 0.8 || growth('sdk') >= 64)) process.exitCode = 1
}

function runChild(kind: 'sdk' | 'raw', url: string, token: string, file: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        '--expose-gc',
        '--conditions=@tessera/source',
        here,
        '--child',
        kind,
        '--url',
        url,
        '--token',
        token,
        '--file',
        file,
      ],
      { maxBuffer: MiB, timeout: 600_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${kind} child failed: ${stderr}`))
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Measured)
      },
    )
  })
}

/** A binary STL header claiming as many triangles as fit, then bulk bytes (a 1 MiB block repeated). */
function writeBigStl(file: string, size: number): void {
  const fd = openSync(file, 'w')
  const header = Buffer.alloc(84)
  header.write('tessera bench:sdk', 0)
  header.writeUInt32LE(Math.floor((size - 84) / 50), 80)
  writeSync(fd, header)
  const block = Buffer.alloc(MiB, 0x3f)
  let left = size - 84
  while (left > 0) left -= writeSync(fd, block, 0, Math.min(block.length, left))
  closeSync(fd)
}

async function startServer(dataDir: string) {
  const child = spawn(process.execPath, [BIN, 'serve', '--no-workers'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TESSERA_DATA_DIR: dataDir,
      TESSERA_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString()
  })
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const url = /"address":"(http:\/\/[^"]+)"/.exec(output)?.[1]
    const admin = /username: (\S+)\n\s+password: (\S+)/.exec(output)
    if (url && admin?.[1] && admin[2])
      return { child, url, admin: { username: admin[1], password: admin[2] } }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`tessera serve did not start:\n${output}`)
}
