// Listing cache staleness (`npm run bench:listing-cache`, PostgreSQL): how long after a commit
// another process's cached listing shows it, and whether a writer ever reads its own write stale.
// Two `tessera-server serve` processes (A and B) on one schema, each with its own pool, LISTEN
// connection and cache (modules/files/listing/postgres/cache.ts), and a listing of 10 converted
// files kept warm in both.
// - staleness: this script commits a change to a files row by SQL (the trigger NOTIFYs, as every
//   writer's does), then asks B's listing back to back until it shows the change; the figure is
//   the time from the commit's return to the send of the first fresh answer's request. Quiet, and
//   with B serving the listing to `--connections` autocannon connections meanwhile.
// - own writes: a star or unstar through A's API, then at once a listing from B and from A; every
//   stale answer is counted (the target is none), and the write's latency (the wait for every
//   process's feed) is reported.
//
//   TESSERA_DATABASE_URL=postgres://… npm run bench:listing-cache -- [--changes 200] [--connections 50] [--check]
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import autocannon from 'autocannon'
import pg from 'pg'
import { benchSchema, freePort } from './local.ts'
import { type ResultRow, record } from './results.ts'

const BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../packages/server/bin/tessera-server.js',
)
const PASSWORD = 'benchmark password'
const FILES = 10
const P99_TARGET_MS = 50
const run = promisify(execFile)

const { values: args } = parseArgs({
  options: {
    changes: { type: 'string', default: '200' },
    connections: { type: 'string', default: '50' },
    check: { type: 'boolean', default: false },
  },
})

type Headers = Record<string, string>
interface Server {
  base: string
  child: ChildProcess
}

async function serve(env: NodeJS.ProcessEnv): Promise<Server> {
  const port = await freePort()
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  while (
    !(await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error('a server did not start')
    await new Promise((r) => setTimeout(r, 250))
  }
  return { base, child }
}

async function signIn(env: NodeJS.ProcessEnv, base: string): Promise<Headers> {
  const username = `bench${randomBytes(3).toString('hex')}`
  const creating = run(
    process.execPath,
    [BIN, 'accounts', 'create', '--email', `${username}@example.com`, '--username', username],
    { env },
  )
  creating.child.stdin?.end(`${PASSWORD}\n`)
  await creating
  const login = await fetch(`${base}/account/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  })
  const token = ((await login.json()) as { cookies: string }).cookies.split('=').slice(1).join('=')
  const session = await fetch(`${base}/account/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  })
  const jwt = ((await session.json()) as { jwt: string }).jwt
  return { authorization: `Bearer ${token}`, 'x-service-session': jwt }
}

interface Listed {
  _id: string
  state: string
  __v: number
  favoritedBy: string[]
}

async function listing(base: string, headers: Headers): Promise<Listed[]> {
  const res = await fetch(`${base}/file/dir/private/`, { headers })
  if (res.status !== 200) throw new Error(`listing answered ${res.status}`)
  return ((await res.json()) as { files: Listed[] }).files
}

/** Uploads FILES small STL models through `base` and waits (≤ 60 s) until all are converted. */
async function uploadConverted(base: string, headers: Headers): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < FILES; i++) {
    const form = new FormData()
    const solid = `solid p\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex ${i + 1} 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid p\n`
    form.append('file', new Blob([solid]), `f${i}.stl`)
    const res = await fetch(`${base}/file/upload/`, { method: 'POST', headers, body: form })
    ids.push(((await res.json()) as { file: { _id: string } }).file._id)
  }
  const deadline = Date.now() + 60_000
  while ((await listing(base, headers)).filter((f) => f.state === 'ready').length < FILES) {
    if (Date.now() > deadline) throw new Error('the files did not convert in 60 s')
    await new Promise((r) => setTimeout(r, 250))
  }
  return ids
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/** Commit → B's first fresh answer, per change, in ms. */
async function staleness(
  admin: pg.Client,
  notices: Notices,
  target: { schema: string; b: string; headers: Headers; fileId: string },
  changes: number,
) {
  const { schema, b, headers, fileId } = target
  const seen: number[] = []
  const notified: number[] = []
  let staleAnswers = 0
  for (let i = 0; i < changes; i++) {
    const notice = notices.next()
    const { rows } = await admin.query<{ version: number }>(
      `update ${schema}.files set version = version + 1, updated_at = $2 where id = $1 returning version`,
      [fileId, Date.now()],
    )
    const committed = performance.now()
    const version = rows[0]?.version
    for (;;) {
      const sent = performance.now()
      const files = await listing(b, headers)
      if (files.find((f) => f._id === fileId)?.__v === version) {
        seen.push(Math.max(0, sent - committed))
        break
      }
      staleAnswers++
      if (sent - committed > 5_000) throw new Error('a change was not seen in 5 s')
    }
    notified.push(Math.max(0, (await notice) - committed))
    await new Promise((r) => setTimeout(r, 5))
  }
  const sort = (samples: number[]) => samples.sort((x, y) => x - y)
  return { seen: sort(seen), notified: sort(notified), staleAnswers }
}

/** The row-change channel as a third listener hears it: when each change's NOTIFY arrives. */
interface Notices {
  next(): Promise<number>
}

async function listenForNotices(
  url: string,
  schema: string,
): Promise<{ notices: Notices; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let arrived: ((at: number) => void) | null = null
  client.on('notification', (message) => {
    if (message.payload?.startsWith(`${schema} files `)) arrived?.(performance.now())
  })
  await client.query('listen tessera_auth_rows')
  return {
    notices: { next: () => new Promise<number>((resolve) => (arrived = resolve)) },
    close: () => client.end(),
  }
}

/** Star/unstar through A, then list from B and A at once: stale answers and write latency. */
async function ownWrites(
  a: string,
  b: string,
  headers: Headers,
  fileId: string,
  email: string,
  changes: number,
) {
  let stale = 0
  const writes: number[] = []
  for (let i = 0; i < changes; i++) {
    const starring = i % 2 === 0
    const started = performance.now()
    const res = await fetch(`${a}/file/${fileId}/favourite`, { method: starring ? 'PUT' : 'DELETE', headers })
    if (res.status !== 200) throw new Error(`a star answered ${res.status}`)
    writes.push(performance.now() - started)
    for (const base of [b, a]) {
      const file = (await listing(base, headers)).find((f) => f._id === fileId)
      if (file?.favoritedBy.includes(email) !== starring) stale++
    }
  }
  return { stale, writes: writes.sort((x, y) => x - y) }
}

/** autocannon on B's listing until stopped; answers its result. */
function background(base: string, headers: Headers, connections: number) {
  let finished: (result: autocannon.Result) => void = () => {}
  const done = new Promise<autocannon.Result>((resolve) => {
    finished = resolve
  })
  const instance = autocannon(
    { url: `${base}/file/dir/private/`, headers, connections, duration: 3600 },
    (error, result) => {
      if (error) throw error
      finished(result)
    },
  )
  return {
    stop(): Promise<autocannon.Result> {
      instance.stop()
      return done
    },
  }
}

type Staleness = Awaited<ReturnType<typeof staleness>>
const figure = (metric: string, value: number, unit: string, name: string): ResultRow => ({
  metric,
  value: Number(value.toFixed(2)),
  unit,
  case: name,
})

function stalenessRows(name: string, result: Staleness): ResultRow[] {
  const [p50, p99] = [quantile(result.seen, 0.5), quantile(result.seen, 0.99)]
  const [n50, n99] = [quantile(result.notified, 0.5), quantile(result.notified, 0.99)]
  console.log(
    `${name}: seen by B p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${result.seen.at(-1)?.toFixed(2)} ms ` +
      `(${result.seen.length} changes, ${result.staleAnswers} stale answers); the NOTIFY at a third listener ` +
      `p50 ${n50.toFixed(2)} ms, p99 ${n99.toFixed(2)} ms`,
  )
  return [
    figure('staleness_p50', p50, 'ms', name),
    figure('staleness_p99', p99, 'ms', name),
    figure('stale_answers', result.staleAnswers, 'answers', name),
    figure('notify_delay_p50', n50, 'ms', name),
    figure('notify_delay_p99', n99, 'ms', name),
  ]
}

function ownWriteRows(own: { stale: number; writes: number[] }, changes: number): ResultRow[] {
  const [p50, p99] = [quantile(own.writes, 0.5), quantile(own.writes, 0.99)]
  console.log(
    `own writes: ${own.stale} stale answers of ${changes * 2} reads; the write's latency p50 ` +
      `${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
  )
  return [
    figure('own_write_stale_reads', own.stale, 'reads', 'own writes'),
    figure('own_write_latency_p50', p50, 'ms', 'own writes'),
    figure('own_write_latency_p99', p99, 'ms', 'own writes'),
  ]
}

async function main(): Promise<void> {
  const url = process.env.TESSERA_DATABASE_URL
  if (!url) throw new Error('npm run bench:listing-cache needs TESSERA_DATABASE_URL (PostgreSQL)')
  const changes = Number(args.changes)
  const created = await benchSchema(url)
  const { schema } = created
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-listing-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_LOG_LEVEL: 'warn',
    TESSERA_LICENSES: '1000',
    TESSERA_DATABASE_URL: created.url,
  }
  const servers: Server[] = []
  try {
    const a = await serve(env)
    servers.push(a)
    const b = await serve(env)
    servers.push(b)
    const headers = await signIn(env, a.base)
    const ids = await uploadConverted(a.base, headers)
    const fileId = ids[0] as string
    const me = await fetch(`${a.base}/account/me`, { headers })
    const email = ((await me.json()) as { account: { email: string } }).account.email
    for (const base of [a.base, b.base]) await listing(base, headers)

    const listener = await listenForNotices(url, schema)
    const target = { schema, b: b.base, headers, fileId }
    const quiet = await staleness(admin, listener.notices, target, changes)
    const load = background(b.base, headers, Number(args.connections))
    await new Promise((r) => setTimeout(r, 1000))
    const loaded = await staleness(admin, listener.notices, target, changes)
    await listener.close()
    const loadResult = await load.stop()
    const own = await ownWrites(a.base, b.base, headers, fileId, email, changes)

    const rps = Math.round(loadResult.requests.average)
    const rows = [
      ...stalenessRows('quiet', quiet),
      ...stalenessRows(`B serving ${args.connections} connections (${rps} req/s)`, loaded),
      ...ownWriteRows(own, changes),
    ]
    const file = record('listing-cache', rows)
    if (file) console.log(`recorded in ${file}`)
    const worst = Math.max(quantile(quiet.seen, 0.99), quantile(loaded.seen, 0.99))
    if (args.check && (worst >= P99_TARGET_MS || own.stale > 0)) process.exitCode = 1
  } finally {
    for (const server of servers) {
      server.child.kill('SIGTERM')
      await once(server.child, 'exit')
    }
    await admin.end()
    await created.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
