// API benchmark (`npm run bench:api`): the authenticated directory listing `GET /file/dir/private/`
// against a bare Fastify route answering the same body, both measured with autocannon in one run.
// The ratio (ours / bare requests per second) tells what auth, session lookup, query and response
// serialization cost on top of Fastify itself.
//
// Each server runs in a child process of this script (the same file, `--serve <target>`), and
// autocannon runs here, so the load generator and the server under test never share an event loop
// (the machine it was written for has 2 cores: one each). Both targets start the same way, so the
// comparison is fair. Everything listens on 127.0.0.1 only; temp data dirs and PostgreSQL schemas
// are removed afterwards.
//
//   npm run bench:api -- [--duration 10] [--connections 50] [--dialect sqlite|postgres] [--check]
//
// --dialect postgres needs TESSERA_DATABASE_URL; the run uses a fresh schema and drops it.
// --check exits non-zero when the ratio is below the target (non-2xx answers always do).
import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../packages/server/src/app.ts'
import { createAccount } from '../packages/server/src/modules/accounts/index.ts'
import { loadConfig } from '../packages/server/src/platform/config.ts'
import { type Db, migrate, openDatabase } from '../packages/server/src/platform/db/index.ts'

const TARGET_RATIO = 0.6
const WARMUP_SECONDS = 2
const ROUTE = '/file/dir/private/'
const BODY = { success: true, files: [] }
const USERNAME = 'bench'
const PASSWORD = 'benchmark password'

type Target = 'bare' | 'tessera'
type Dialect = 'sqlite' | 'postgres'

/** Child → parent: the server listens. */
interface Ready {
  type: 'ready'
  port: number
}
/** Child → parent: CPU time the server process used so far (user + system), in µs. */
interface CpuTime {
  type: 'cpu'
  micros: number
}
/** Parent → child: report CPU time, or close and clean up. */
interface Command {
  type: 'cpu' | 'stop'
}

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    dialect: { type: 'string', default: 'sqlite' },
    check: { type: 'boolean', default: false },
    serve: { type: 'string' },
  },
})

function positiveInteger(name: string, raw: string): number {
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer, not "${raw}"`)
  return value
}

function dialectOf(raw: string): Dialect {
  if (raw !== 'sqlite' && raw !== 'postgres')
    throw new Error(`--dialect must be sqlite or postgres, not "${raw}"`)
  return raw
}

// ---------------------------------------------------------------------------------------------
// Child side: one server, until the parent says stop (or goes away).

async function serve(target: Target, dialect: Dialect): Promise<void> {
  let cleanup = async (): Promise<void> => {}
  let app: FastifyInstance
  if (target === 'bare') {
    app = Fastify()
    app.get('/', async () => BODY)
  } else {
    const opened = await openTessera(dialect)
    app = opened.app
    cleanup = opened.cleanup
  }
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')

  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    await app.close()
    await cleanup()
    process.exit(0)
  }
  process.on('message', (message: Command) => {
    if (message.type === 'stop') void stop()
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage()
      process.send?.({ type: 'cpu', micros: user + system } satisfies CpuTime)
    }
  })
  process.on('disconnect', () => void stop())
  process.send?.({ type: 'ready', port: address.port } satisfies Ready)
}

/** The real API on a fresh database, with one account whose private root directory is empty. */
async function openTessera(
  dialect: Dialect,
): Promise<{ app: FastifyInstance; cleanup: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-'))
  const env = {
    ...process.env,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_LOG_LEVEL: 'warn',
    TESSERA_DATABASE_URL: '',
  }
  let app: FastifyInstance
  let db: Db | undefined
  let dropSchema = async (): Promise<void> => {}
  if (dialect === 'postgres') {
    const url = process.env.TESSERA_DATABASE_URL
    if (!url) throw new Error('--dialect postgres needs TESSERA_DATABASE_URL')
    const schema = `bench_${process.pid}_${randomBytes(4).toString('hex')}`
    const pgDb = await openDatabase({ databaseUrl: url, dataDir, pgSchema: schema })
    db = pgDb
    dropSchema = async () => {
      await pgDb.close()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`drop schema if exists ${schema} cascade`)
      } finally {
        await client.end()
      }
    }
    await migrate(pgDb)
    app = await buildApp(loadConfig({ ...env, TESSERA_DATABASE_URL: url }), { db: pgDb })
  } else {
    app = await buildApp(loadConfig(env))
  }
  await createAccount(app.ctx, { email: `${USERNAME}@example.com`, username: USERNAME, password: PASSWORD })
  return {
    app,
    async cleanup() {
      // buildApp closes a database it opened itself; one passed in (PostgreSQL) is ours to close.
      if (db) await dropSchema()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Parent side: start a child, drive it with autocannon, stop it.

interface Server {
  base: string
  /** CPU time used by the server process so far, in µs. */
  cpuMicros(): Promise<number>
  stop(): Promise<void>
}

const children = new Set<ChildProcess>()

function startServer(target: Target, dialect: Dialect): Promise<Server> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', target, '--dialect', dialect], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  children.add(child)
  child.once('exit', () => children.delete(child))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${target} server did not start within 60 s`)), 60_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${target} server exited with code ${code} before listening`))
    })
    child.once('message', (message: Ready) => {
      clearTimeout(timer)
      resolve({
        base: `http://127.0.0.1:${message.port}`,
        cpuMicros() {
          return new Promise((resolveCpu) => {
            child.once('message', (reply: CpuTime) => resolveCpu(reply.micros))
            child.send({ type: 'cpu' } satisfies Command)
          })
        },
        async stop() {
          child.send({ type: 'stop' } satisfies Command)
          const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000)
          await exited
          clearTimeout(timeout)
        },
      })
    })
  })
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  })
  if (res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`)
  return res.json()
}

/** Logs in and opens a session over HTTP, as a client does; returns the headers of every call. */
async function signIn(base: string): Promise<Record<string, string>> {
  const login = (await postJson(`${base}/account/login/`, { username: USERNAME, password: PASSWORD })) as {
    cookies: string
  }
  const authToken = login.cookies.slice('jsonwebtoken='.length)
  const authorization = `Bearer ${authToken}`
  const session = (await postJson(`${base}/account/session`, undefined, { authorization })) as { jwt: string }
  return { authorization, 'x-service-session': session.jwt }
}

/** One request outside the load, so that a wrong setup fails loudly instead of measuring errors. */
async function assertAnswers(url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, { headers })
  const text = await res.text()
  if (res.status !== 200 || text !== JSON.stringify(BODY)) {
    throw new Error(`GET ${url}: expected 200 ${JSON.stringify(BODY)}, got ${res.status} ${text}`)
  }
}

interface Measurement {
  name: string
  requestsPerSecond: number
  /** Server CPU time per request: unlike req/s, barely affected by other load on the machine. */
  cpuMicrosPerRequest: number
  p50: number
  p99: number
  requests: number
  non2xx: number
  errors: number
}

async function measure(
  name: string,
  server: Server,
  url: string,
  headers: Record<string, string>,
  options: { duration: number; connections: number },
): Promise<Measurement> {
  await assertAnswers(url, headers)
  const run = (duration: number) => autocannon({ url, headers, duration, connections: options.connections })
  const warmup = await run(WARMUP_SECONDS)
  const cpuBefore = await server.cpuMicros()
  const result = await run(options.duration)
  const cpuAfter = await server.cpuMicros()
  return {
    name,
    requestsPerSecond: result.requests.mean,
    cpuMicrosPerRequest: (cpuAfter - cpuBefore) / result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: warmup.non2xx + result.non2xx,
    errors: warmup.errors + result.errors,
  }
}

async function bench(target: Target, dialect: Dialect, options: { duration: number; connections: number }) {
  const server = await startServer(target, dialect)
  try {
    if (target === 'bare') return await measure('bare fastify GET /', server, `${server.base}/`, {}, options)
    const headers = await signIn(server.base)
    return await measure(
      `tessera GET ${ROUTE} (${dialect})`,
      server,
      `${server.base}${ROUTE}`,
      headers,
      options,
    )
  } finally {
    await server.stop()
  }
}

function report(rows: Measurement[]): void {
  const table = rows.map((row) => ({
    target: row.name,
    'req/s (mean)': Math.round(row.requestsPerSecond),
    'p50 ms': row.p50,
    'p99 ms': row.p99,
    'server CPU µs/req': Math.round(row.cpuMicrosPerRequest),
    requests: row.requests,
    'non-2xx': row.non2xx,
    errors: row.errors,
  }))
  console.table(table)
}

async function main(): Promise<number> {
  const duration = positiveInteger('duration', args.duration)
  const connections = positiveInteger('connections', args.connections)
  const dialect = dialectOf(args.dialect)
  const options = { duration, connections }

  // Bounded: two warm-ups, two runs, start-up and shutdown; anything beyond is a hang.
  const budgetMs = (2 * (WARMUP_SECONDS + duration) + 120) * 1000
  const watchdog = setTimeout(() => {
    console.error(`benchmark exceeded ${budgetMs / 1000} s; aborting`)
    for (const child of children) child.kill('SIGKILL')
    process.exit(2)
  }, budgetMs)
  watchdog.unref()

  console.log(
    `autocannon: ${connections} connections, ${WARMUP_SECONDS} s warm-up + ${duration} s per target`,
  )
  const bare = await bench('bare', dialect, options)
  const ours = await bench('tessera', dialect, options)
  report([bare, ours])
  const ratio = ours.requestsPerSecond / bare.requestsPerSecond
  const verdict = ratio >= TARGET_RATIO ? 'meets' : 'BELOW'
  console.log(`ratio tessera/bare: ${ratio.toFixed(3)} (${verdict} target ${TARGET_RATIO.toFixed(2)})`)
  const cpuRatio = bare.cpuMicrosPerRequest / ours.cpuMicrosPerRequest
  console.log(`ratio of server CPU per request, bare/tessera: ${cpuRatio.toFixed(3)} (robust to other load)`)

  let status = 0
  for (const row of [bare, ours]) {
    if (row.non2xx > 0 || row.errors > 0) {
      console.error(`${row.name}: ${row.non2xx} non-2xx answers and ${row.errors} errors (must be 0)`)
      status = 1
    }
  }
  if (args.check && ratio < TARGET_RATIO) status = 1
  return status
}

if (args.serve !== undefined) {
  const target = args.serve
  if (target !== 'bare' && target !== 'tessera')
    throw new Error(`--serve must be bare or tessera, not "${target}"`)
  await serve(target, dialectOf(args.dialect))
} else {
  try {
    process.exitCode = await main()
  } catch (error) {
    console.error(error)
    for (const child of children) child.kill('SIGKILL')
    process.exitCode = 1
  }
}
