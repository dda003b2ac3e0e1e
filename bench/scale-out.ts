// Scale-out benchmark (`npm run bench:scale-out`): `tessera serve --processes N` for N = 1 and 2 on
// a fresh database, driven by autocannon from this process: an authenticated listing of a folder
// with 10 files and an attribute write. Then the delivery latency with a webhook receiver here:
// N = 1 hands new deliveries to the worker in the same process; N > 1 on SQLite wakes the workers
// process over IPC (PostgreSQL: NOTIFY).
//
//   npm run bench:scale-out -- [--duration 8] [--connections 50] [--processes 1,2] [--dialect sqlite|postgres]
//
// --dialect postgres needs TESSERA_DATABASE_URL; the run uses a fresh schema and drops it. The load
// generator shares the machine with the server: on 2 cores it takes one of them.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../packages/server/bin/tessera.js')
const PASSWORD = 'benchmark password'
const run = promisify(execFile)

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    processes: { type: 'string', default: '1,2' },
    dialect: { type: 'string', default: 'sqlite' },
    latency: { type: 'string', default: '100' },
  },
})

async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  server.close()
  return port
}

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
    const schema = `bench_${randomBytes(4).toString('hex')}`
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    await client.query(`create schema ${schema}`)
    await client.end()
    const withSchema = new URL(url)
    withSchema.searchParams.set('options', `-c search_path=${schema}`)
    env.TESSERA_DATABASE_URL = withSchema.toString()
    dropSchema = async () => {
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      await admin.query(`drop schema if exists ${schema} cascade`)
      await admin.end()
    }
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
  await run(
    process.execPath,
    [
      BIN,
      'accounts',
      'create',
      '--email',
      `${username}@example.com`,
      '--username',
      username,
      '--password',
      PASSWORD,
    ],
    { env: instance.env },
  )
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
    form.append('file', new Blob([randomBytes(512)]), `f${i}.stl`)
    const res = await fetch(`${instance.base}/file/upload/`, { method: 'POST', headers, body: form })
    ids.push(((await res.json()) as { file: { _id: string } }).file._id)
  }
  return ids
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

/** Sequential attribute writes, each waiting for its webhook: write start to arrival, in ms. */
async function deliveryLatency(
  instance: Instance,
  headers: Record<string, string>,
  fileId: string,
  count: number,
) {
  let arrived: (() => void) | null = null
  const receiver = createHttpServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.end('{"success":true}')
      arrived?.()
    })
  })
  receiver.listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
  const hook = await fetch(`${instance.base}/webhook/`, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ event: 'attribute_updated', url, secretToken: 'k7Qx-9vR2mWp4ZtL8bNc' }),
  })
  if (hook.status !== 200) throw new Error(`webhook: ${hook.status}`)
  const samples: number[] = []
  for (let i = 0; i < count; i += 1) {
    const landed = new Promise<void>((resolve) => {
      arrived = resolve
    })
    const started = performance.now()
    const res = await fetch(`${instance.base}/scene/attributes`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ file: fileId, nodeIdToAttributes: { n: { i } } }),
    })
    await res.arrayBuffer()
    await landed
    samples.push(performance.now() - started)
  }
  receiver.close()
  samples.sort((a, b) => a - b)
  const at = (q: number) => Math.round((samples[Math.floor(q * (samples.length - 1))] ?? 0) * 10) / 10
  return { p50: at(0.5), p99: at(0.99), max: at(1) }
}

async function main(): Promise<void> {
  const duration = Number(args.duration)
  const connections = Number(args.connections)
  for (const processes of args.processes.split(',').map(Number)) {
    const instance = await start(processes, args.dialect)
    try {
      const headers = await signIn(instance)
      const files = await uploadFiles(instance, headers, 10)
      const listing = await cannon({
        url: `${instance.base}/file/dir/private/`,
        headers,
        connections,
        duration,
      })
      const write = await cannon({
        url: `${instance.base}/scene/attributes`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ file: files[0], nodeIdToAttributes: { bench: { v: 1 } } }),
        connections,
        duration,
      })
      const latency = await deliveryLatency(instance, headers, files[1] ?? '', Number(args.latency))
      console.log(JSON.stringify({ dialect: args.dialect, processes, listing, write, deliveryMs: latency }))
    } finally {
      await instance.stop()
    }
  }
}

await main()
