// Scale-out benchmark (`npm run bench:scale-out`): `tessera serve --processes N` for N = 1 and 2,
// each on a fresh database and all running for the whole run, driven by autocannon from this
// process: an authenticated listing of a folder with 10 converted files and an attribute write.
// Then the delivery latency with a webhook receiver here: N = 1 hands new deliveries to the worker
// in the same process; N > 1 on SQLite wakes the workers process over IPC (PostgreSQL: NOTIFY).
// The instances alternate within each of --rounds rounds (order reversed every other round), and
// the table gives medians, as the other benchmarks do.
//
//   npm run bench:scale-out -- [--duration 8] [--connections 50] [--processes 1,2] [--rounds 3]
//     [--latency 100] [--dialect sqlite|postgres]
//
// --dialect postgres needs TESSERA_DATABASE_URL; the run uses a fresh schema and drops it. The load
// generator shares the machine with the server: on 2 cores it takes one of them.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import autocannon from 'autocannon'
import { benchSchema, freePort } from './local.ts'
import { type ResultRow, record } from './results.ts'

const BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../packages/server/bin/tessera-server.js',
)
const PASSWORD = 'benchmark password'
const run = promisify(execFile)

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    processes: { type: 'string', default: '1,2' },
    dialect: { type: 'string', default: 'sqlite' },
    latency: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
  },
})

interface Instance {
  base: string
  env: NodeJS.ProcessEnv
  child: ChildProcess
  stop(): Promise<void>
}

async function start(processes: number, dialect: string): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-scale-'))
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TESSERA_DATA_DIR: dataDir,
    PORT: String(port),
    TESSERA_LOG_LEVEL: 'warn',
    TESSERA_LICENSES: '1000',
    TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    TESSERA_DATABASE_URL: '',
  }
  let dropSchema = async () => {}
  if (dialect === 'postgres') {
    const url = process.env.TESSERA_DATABASE_URL
    if (!url) throw new Error('--dialect postgres needs TESSERA_DATABASE_URL')
    const created = await benchSchema(url)
    env.TESSERA_DATABASE_URL = created.url
    dropSchema = created.drop
  }
  const child = spawn(process.execPath, [BIN, 'serve', '--processes', String(processes)], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (Date.now() > deadline) throw new Error('the server did not start')
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 250))
  }
  // Every API process must be up: the healthz above may have reached only the first.
  await new Promise((r) => setTimeout(r, 3000))
  return {
    base,
    env,
    child,
    async stop() {
      child.kill('SIGTERM')
      await once(child, 'exit')
      await dropSchema()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

async function signIn(instance: Instance): Promise<Record<string, string>> {
  const username = `bench${randomBytes(3).toString('hex')}`
  // The password on stdin: `accounts create` takes none as an argument.
  const creating = run(
    process.execPath,
    [BIN, 'accounts', 'create', '--email', `${username}@example.com`, '--username', username],
    { env: instance.env },
  )
  creating.child.stdin?.end(`${PASSWORD}\n`)
  await creating
  const login = await fetch(`${instance.base}/account/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  })
  const token = ((await login.json()) as { cookies: string }).cookies.split('=').slice(1).join('=')
  const session = await fetch(`${instance.base}/account/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  })
  const jwt = ((await session.json()) as { jwt: string }).jwt
  return { authorization: `Bearer ${token}`, 'x-service-session': jwt }
}

async function uploadFiles(
  instance: Instance,
  headers: Record<string, string>,
  count: number,
): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i += 1) {
    const form = new FormData()
    form.append('file', new Blob([stl(i)]), `f${i}.stl`)
    const res = await fetch(`${instance.base}/file/upload/`, { method: 'POST', headers, body: form })
    ids.push(((await res.json()) as { file: { _id: string } }).file._id)
  }
  await convertedAll(instance, headers, ids.length)
  return ids
}

/** A small ASCII STL (a pyramid, scaled by i) that converts: the listing then carries real rows. */
function stl(i: number): string {
  const s = i + 1
  const v = [
    [0, 0, 0],
    [s, 0, 0],
    [0, s, 0],
    [0, 0, s],
  ]
  const faces = [
    [0, 2, 1],
    [0, 1, 3],
    [0, 3, 2],
    [1, 2, 3],
  ]
  const facet = (f: number[]) =>
    `facet normal 0 0 0\nouter loop\n${f.map((k) => `vertex ${v[k]?.join(' ')}`).join('\n')}\nendloop\nendfacet\n`
  return `solid p${i}\n${faces.map(facet).join('')}endsolid p${i}\n`
}

/** The first node of a converted file's scene tree: attribute writes must name a node it has. */
async function firstNode(
  instance: Instance,
  headers: Record<string, string>,
  fileId: string,
): Promise<string> {
  const res = await fetch(`${instance.base}/file/${fileId}/scene-tree`, { headers })
  const { tree } = (await res.json()) as { tree: { id: string }[] }
  const node = tree[0]?.id
  if (res.status !== 200 || node === undefined) throw new Error(`no scene tree for ${fileId}: ${res.status}`)
  return node
}

/** Waits (≤ 60 s) until every uploaded file is converted, so no conversion runs while measuring. */
async function convertedAll(instance: Instance, headers: Record<string, string>, count: number) {
  const deadline = Date.now() + 60_000
  for (;;) {
    const res = await fetch(`${instance.base}/file/dir/private/`, { headers })
    const { files } = (await res.json()) as { files: { state: string }[] }
    const ready = files.filter((f) => f.state === 'ready').length
    if (ready >= count) return
    if (files.some((f) => f.state === 'error')) throw new Error('a benchmark model failed to convert')
    if (Date.now() > deadline) throw new Error(`only ${ready} of ${count} files converted in 60 s`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

async function cannon(
  options: autocannon.Options,
): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  await autocannon({ ...options, duration: 2 })
  const result = await autocannon(options)
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

/**
 * A webhook receiver in this process, registered once per instance for attribute_updated. The
 * write case's deliveries reach it too (a backlog may still drain when the latency writes start),
 * so a latency write counts as arrived only when a body carries its marker.
 */
interface Hook {
  expect: string
  arrived: (() => void) | null
  close(): void
}

async function registerHook(instance: Instance, headers: Record<string, string>): Promise<Hook> {
  const hook: Hook = { expect: '', arrived: null, close: () => receiver.close() }
  const receiver = createHttpServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => {
      res.end('{"success":true}')
      if (hook.expect !== '' && body.includes(hook.expect)) hook.arrived?.()
    })
  })
  receiver.listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
  const res = await fetch(`${instance.base}/webhook/`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'attribute_updated', url, secretToken: 'k7Qx-9vR2mWp4ZtL8bNc' }),
  })
  if (res.status !== 200) throw new Error(`webhook: ${res.status}`)
  return hook
}

/** One attribute write carrying `marker`, resolved when its webhook arrived (≤ 60 s). */
async function writeAndWait(target: Prepared, hook: Hook, marker: string): Promise<void> {
  hook.expect = JSON.stringify(marker) // quoted: latency-0-1 is not found in latency-0-10
  let timer: NodeJS.Timeout | undefined
  const landed = new Promise<void>((resolve, reject) => {
    hook.arrived = resolve
    timer = setTimeout(() => reject(new Error(`the webhook of ${marker} did not arrive in 60 s`)), 60_000)
  })
  const res = await fetch(`${target.instance.base}/scene/attributes`, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      file: target.files[1],
      nodeIdToAttributes: { [target.nodes[1] ?? '']: { marker } },
    }),
  })
  if (res.status !== 200) throw new Error(`attribute write: ${res.status} ${await res.text()}`)
  await landed.finally(() => clearTimeout(timer))
}

/**
 * Sequential attribute writes, each waiting for its webhook: write start to arrival, in ms. A first
 * untimed write waits until the write case's deliveries have drained (one webhook's deliveries go
 * out oldest first).
 */
async function deliveryLatency(target: Prepared, count: number) {
  const { hook } = target
  if (!hook) throw new Error('no webhook registered')
  const round = target.samples.length
  await writeAndWait(target, hook, `latency-${round}-drain`)
  const samples: number[] = []
  for (let i = 0; i < count; i += 1) {
    const started = performance.now()
    await writeAndWait(target, hook, `latency-${round}-${i}`)
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => Math.round((samples[Math.floor(q * (samples.length - 1))] ?? 0) * 10) / 10
  return { p50: at(0.5), p99: at(0.99), max: at(1) }
}

type Cannon = Awaited<ReturnType<typeof cannon>>

interface Sample {
  listing: Cannon
  write: Cannon
  /** Listing and writes at once, half the connections each. */
  mixed: { listing: Cannon; write: Cannon }
  delivery: Awaited<ReturnType<typeof deliveryLatency>>
}

interface Prepared {
  processes: number
  instance: Instance
  headers: Record<string, string>
  files: string[]
  /** The first node of files[0] (the write case's) and files[1] (the latency writes'). */
  nodes: string[]
  hook: Hook | null
  samples: Sample[]
}

const listingCase = (target: Prepared) => ({
  url: `${target.instance.base}/file/dir/private/`,
  headers: target.headers,
})

const writeCase = (target: Prepared) => ({
  url: `${target.instance.base}/scene/attributes`,
  method: 'POST' as const,
  headers: { ...target.headers, 'content-type': 'application/json' },
  body: JSON.stringify({ file: target.files[0], nodeIdToAttributes: { [target.nodes[0] ?? '']: { v: 1 } } }),
})

async function measure(target: Prepared, duration: number, connections: number): Promise<Sample> {
  const listing = await cannon({ ...listingCase(target), connections, duration })
  const write = await cannon({ ...writeCase(target), connections, duration })
  // Reads while the hot file is written: half the clients list, half write, at the same time.
  const half = Math.max(1, Math.floor(connections / 2))
  const [mixedListing, mixedWrite] = await Promise.all([
    cannon({ ...listingCase(target), connections: half, duration }),
    cannon({ ...writeCase(target), connections: half, duration }),
  ])
  const delivery = await deliveryLatency(target, Number(args.latency))
  return { listing, write, mixed: { listing: mixedListing, write: mixedWrite }, delivery }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0
}

function report(targets: Prepared[]): void {
  console.log(
    '| dialect | processes | listing req/s (rounds) | listing p50 / p99 ms | write req/s (rounds) | write p50 / p99 ms | during writes: listing req/s, p50 / p99 ms; write req/s | delivery p50 / p99 ms | errors |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const t of targets) {
    const m = (pick: (s: Sample) => number) => median(t.samples.map(pick))
    const rounds = (pick: (s: Sample) => number) => t.samples.map(pick).join(', ')
    const errors = t.samples.reduce(
      (n, s) => n + s.listing.errors + s.write.errors + s.mixed.listing.errors + s.mixed.write.errors,
      0,
    )
    const mixed = `${m((s) => s.mixed.listing.rps)}, ${m((s) => s.mixed.listing.p50)} / ${m((s) => s.mixed.listing.p99)}; ${m((s) => s.mixed.write.rps)}`
    console.log(
      `| ${args.dialect} | ${t.processes} | ${rounds((s) => s.listing.rps)} → ${m((s) => s.listing.rps)} | ` +
        `${m((s) => s.listing.p50)} / ${m((s) => s.listing.p99)} | ${rounds((s) => s.write.rps)} → ${m((s) => s.write.rps)} | ` +
        `${m((s) => s.write.p50)} / ${m((s) => s.write.p99)} | ${mixed} | ${m((s) => s.delivery.p50)} / ${m((s) => s.delivery.p99)} | ${errors} |`,
    )
  }
}

/** The report's medians as history rows (bench/results.ts), per instance. */
function resultRows(targets: Prepared[]): ResultRow[] {
  return targets.flatMap((t) => {
    const m = (pick: (s: Sample) => number) => median(t.samples.map(pick))
    const at = { dialect: args.dialect, processes: t.processes }
    const rows: Array<[string, number, string, Record<string, number | number[]>?]> = [
      [
        'listing_req_per_s',
        m((s) => s.listing.rps),
        'req/s',
        { rounds: t.samples.map((s) => s.listing.rps) },
      ],
      ['listing_p50', m((s) => s.listing.p50), 'ms'],
      ['listing_p99', m((s) => s.listing.p99), 'ms'],
      ['hot_write_req_per_s', m((s) => s.write.rps), 'req/s', { rounds: t.samples.map((s) => s.write.rps) }],
      ['hot_write_p50', m((s) => s.write.p50), 'ms'],
      ['hot_write_p99', m((s) => s.write.p99), 'ms'],
      [
        'listing_during_writes_req_per_s',
        m((s) => s.mixed.listing.rps),
        'req/s',
        { p50: m((s) => s.mixed.listing.p50), p99: m((s) => s.mixed.listing.p99) },
      ],
      ['writes_during_listings_per_s', m((s) => s.mixed.write.rps), 'req/s'],
      ['delivery_p50', m((s) => s.delivery.p50), 'ms'],
      ['delivery_p99', m((s) => s.delivery.p99), 'ms'],
    ]
    return rows.map(([metric, value, unit, extra]) => ({ metric, value, unit, ...at, ...extra }))
  })
}

async function main(): Promise<void> {
  const duration = Number(args.duration)
  const connections = Number(args.connections)
  const targets: Prepared[] = []
  try {
    for (const processes of args.processes.split(',').map(Number)) {
      const instance = await start(processes, args.dialect)
      const target: Prepared = {
        processes,
        instance,
        headers: {},
        files: [],
        nodes: [],
        hook: null,
        samples: [],
      }
      targets.push(target)
      target.headers = await signIn(instance)
      target.files = await uploadFiles(instance, target.headers, 10)
      for (const file of target.files.slice(0, 2))
        target.nodes.push(await firstNode(instance, target.headers, file))
      target.hook = await registerHook(instance, target.headers)
    }
    console.log(
      `load average at start: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    )
    for (let round = 0; round < Number(args.rounds); round += 1) {
      const order = round % 2 === 0 ? targets : [...targets].reverse()
      for (const target of order) {
        const sample = await measure(target, duration, connections)
        target.samples.push(sample)
        console.log(
          JSON.stringify({ round: round + 1, dialect: args.dialect, processes: target.processes, ...sample }),
        )
      }
    }
    console.log(
      `load average at end: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    )
    report(targets)
    record('scale-out', resultRows(targets))
  } finally {
    for (const target of targets) {
      target.hook?.close()
      await target.instance.stop()
    }
  }
}

await main()
