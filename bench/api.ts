// API benchmark (`npm run bench:api`): what users see, each case against a bare Fastify route that
// answers the same body to the same request (method, path, headers, request body), both measured
// with autocannon in one run:
//   list10   GET  /file/dir/private/               the root directory, 10 converted files
//   list100  GET  /file/dir/private/plant/line-3   a directory of 100 converted files
//   record   GET  /file/:id                        one file record
//   tree     GET  /file/:id/scene-tree             a 64-node scene tree
//   write    POST /scene/attributes                attributes merged into one node (an event each)
// The ratio (ours / bare requests per second) tells what auth, session lookup, queries and response
// serialization cost on top of Fastify itself; "server CPU per request" (bare / ours) says the same
// and barely moves with other load on the machine.
// On PostgreSQL the listings are also measured against a third server, the "floor": the bare route
// after one query of the page (FloorQuery), i.e. the best a design reading the database once per
// request can reach on this machine.
//
// Each server runs in a child process of this script (the same file, `--serve <target>`), and
// autocannon runs here, so the load generator and the servers never share an event loop. Both
// servers stay up for the whole run and rounds alternate between them (bare, ours, bare, ours…),
// so that a burst of other load hits both alike; the table shows medians over the rounds.
// Everything listens on 127.0.0.1 only; temp data dirs and PostgreSQL schemas are removed afterwards.
//
//   npm run bench:api -- [--duration 5] [--rounds 3] [--connections 50]
//     [--dialect sqlite|postgres|both] [--case list10|list100|record|tree|write|all] [--check]
//
// --dialect postgres (and both) needs TESSERA_DATABASE_URL; the run uses a fresh schema and drops it.
// --cpu-prof-dir DIR writes a V8 CPU profile of the Tessera server there (open it in Chrome DevTools,
// or sum self time per function: see docs/benchmarks.md).
// --check exits non-zero when the list10 ratio is below the dialect's target (non-2xx answers
// always do).
import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'
import { buildApp } from '../packages/server/src/app/app.ts'
import { loadConfig } from '../packages/server/src/app/config.ts'
import { warmConnections } from '../packages/server/src/app/server-context.ts'
import { createAccount } from '../packages/server/src/modules/accounts/index.ts'
import { type Db, migrate, openDatabase } from '../packages/server/src/platform/db/index.ts'
import { type Seeded, seed } from './api-seed.ts'
import { type EmitReport, type EmitRequest, emitAtRate } from './listen-emitter.ts'
import { type ResultRow, record } from './results.ts'

const TARGET_RATIO: Record<Dialect, number> = { sqlite: 0.6, postgres: 0.5 }
const WARMUP_SECONDS = 2
const USERNAME = 'bench'
const PASSWORD = 'benchmark password'
const CASES = ['list10', 'list100', 'record', 'tree', 'write'] as const

type Case = (typeof CASES)[number]
type Target = 'bare' | 'floor' | 'tessera'
type Dialect = 'sqlite' | 'postgres'

/** One request of a case, as both servers get it. */
interface Call {
  method: 'GET' | 'POST'
  path: string
  body?: string
}

/** Child → parent. */
type ChildMessage =
  | { type: 'ready'; port: number; seeded?: Seeded; floor?: FloorQuery }
  | { type: 'cpu'; micros: number }
  | EmitReport
/**
 * PostgreSQL: the floor server's query, one per request before it answers: the narrowest page of
 * the listing (the columns a kept view needs), as a named prepared statement. No design that reads
 * the database once per request can do better than that server here.
 */
interface FloorQuery {
  url: string
  schema: string
  ownerId: string
}

/** Parent → child: the routes a bare server answers (before it listens), CPU time, or stop. */
type Command =
  | {
      type: 'routes'
      routes: Array<{ method: Call['method']; path: string; answer: unknown; parent?: string }>
      floor?: FloorQuery
    }
  | { type: 'cpu' }
  | { type: 'stop' }
  | EmitRequest

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    dialect: { type: 'string', default: 'sqlite' },
    case: { type: 'string', default: 'all' },
    check: { type: 'boolean', default: false },
    'cpu-prof-dir': { type: 'string' },
    serve: { type: 'string' },
  },
})

function positiveInteger(name: string, raw: string): number {
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer, not "${raw}"`)
  return value
}

function dialectsOf(raw: string): Dialect[] {
  if (raw === 'both') return ['sqlite', 'postgres']
  if (raw !== 'sqlite' && raw !== 'postgres')
    throw new Error(`--dialect must be sqlite, postgres or both, not "${raw}"`)
  return [raw]
}

function casesOf(raw: string): Case[] {
  if (raw === 'all') return [...CASES]
  const found = CASES.find((name) => name === raw)
  if (!found) throw new Error(`--case must be one of ${CASES.join(', ')} or all, not "${raw}"`)
  return [found]
}

// ---------------------------------------------------------------------------------------------
// Child side: one server, until the parent says stop (or goes away).

function send(message: ChildMessage): void {
  process.send?.(message)
}

async function serve(target: Target, dialect: Dialect): Promise<void> {
  let cleanup = async (): Promise<void> => {}
  let app: FastifyInstance
  let seeded: Seeded | undefined
  let owner: { id: string } | undefined
  let floorQuery: FloorQuery | undefined
  if (target !== 'tessera') {
    app = Fastify()
    const command = await new Promise<Command>((resolve) => process.once('message', resolve))
    if (command.type !== 'routes') throw new Error('a bare server needs its routes first')
    const floor = target === 'floor' ? floorReader(command.floor) : undefined
    if (floor) cleanup = floor.close
    for (const route of command.routes) {
      const { parent } = route
      const handler =
        floor && parent !== undefined
          ? async () => {
              await floor.read(parent)
              return route.answer
            }
          : async () => route.answer
      app.route({ method: route.method, url: route.path, handler })
    }
  } else {
    const opened = await openTessera(dialect)
    app = opened.app
    cleanup = opened.cleanup
    seeded = opened.seeded
    owner = opened.owner
    floorQuery = opened.floor
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
      send({ type: 'cpu', micros: user + system })
    }
    // bench/listen.ts --emitter outbox: events committed by this server process itself.
    if (message.type === 'emit' && owner && seeded)
      void emitAtRate(app, owner, seeded.fileId, message).then(send, (error: unknown) => {
        console.error(error)
        process.exit(1)
      })
  })
  process.on('disconnect', () => void stop())
  send({
    type: 'ready',
    port: address.port,
    ...(seeded ? { seeded } : {}),
    ...(floorQuery ? { floor: floorQuery } : {}),
  })
}

/** The floor server's one query per request (see FloorQuery), on a pool as big as Tessera's. */
function floorReader(query: FloorQuery | undefined) {
  if (!query) throw new Error('a floor server needs its query')
  const pool = new pg.Pool({ connectionString: query.url, max: 10 })
  const text =
    'select id, name, version, updated_at, progress, state, thumbnail_key ' +
    `from ${query.schema}.files where owner_id = $1 and parent = $2 and name > $3 order by name limit $4`
  return {
    async read(parent: string) {
      await pool.query({ name: 'floor', text, values: [query.ownerId, parent, '', 1001] })
    },
    close: () => pool.end(),
  }
}

/** The real API on a fresh database: one account owning 110 converted-looking files. */
async function openTessera(dialect: Dialect): Promise<{
  app: FastifyInstance
  seeded: Seeded
  owner: { id: string }
  floor?: FloorQuery
  cleanup: () => Promise<void>
}> {
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
  let pgPlace: { url: string; schema: string } | undefined
  if (dialect === 'postgres') {
    const url = process.env.TESSERA_DATABASE_URL
    if (!url) throw new Error('--dialect postgres needs TESSERA_DATABASE_URL')
    const schema = `bench_${process.pid}_${randomBytes(4).toString('hex')}`
    const pgDb = await openDatabase({ databaseUrl: url, dataDir, pgSchema: schema })
    db = pgDb
    pgPlace = { url, schema }
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
    await warmConnections(app.ctx) // as `tessera serve` does
  } else {
    app = await buildApp(loadConfig(env))
  }
  const account = await createAccount(app.ctx, {
    email: `${USERNAME}@example.com`,
    username: USERNAME,
    password: PASSWORD,
  })
  const seeded = await seed(app.ctx.db, account)
  return {
    app,
    seeded,
    owner: account,
    ...(pgPlace ? { floor: { ...pgPlace, ownerId: account.id } } : {}),
    async cleanup() {
      // buildApp closes a database it opened itself; one passed in (PostgreSQL) is ours to close.
      if (db) await dropSchema()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Parent side: start the children, drive them with autocannon, stop them.

interface Server {
  base: string
  seeded: Seeded | undefined
  floor: FloorQuery | undefined
  /** CPU time used by the server process so far, in µs. */
  cpuMicros(): Promise<number>
  stop(): Promise<void>
}

const children = new Set<ChildProcess>()

function startServer(target: Target, dialect: Dialect, routes?: Command): Promise<Server> {
  const profile = target === 'tessera' && args['cpu-prof-dir'] !== undefined
  const child = fork(fileURLToPath(import.meta.url), ['--serve', target, '--dialect', dialect], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [
      ...process.execArgv,
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof-dir']}`] : []),
    ],
  })
  children.add(child)
  if (routes) child.send(routes)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${target} server did not start within 120 s`)), 120_000)
    child.once('exit', (code) => {
      children.delete(child)
      clearTimeout(timer)
      reject(new Error(`${target} server exited with code ${code} before listening`))
    })
    child.once('message', (message: ChildMessage) => {
      clearTimeout(timer)
      if (message.type !== 'ready') return reject(new Error(`unexpected ${message.type}`))
      resolve({
        base: `http://127.0.0.1:${message.port}`,
        seeded: message.seeded,
        floor: message.floor,
        cpuMicros() {
          return new Promise((resolveCpu) => {
            child.once('message', (reply: ChildMessage) =>
              resolveCpu(reply.type === 'cpu' ? reply.micros : 0),
            )
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

function callOf(name: Case, seeded: Seeded): Call {
  switch (name) {
    case 'list10':
      return { method: 'GET', path: '/file/dir/private/' }
    case 'list100':
      return { method: 'GET', path: `/file/dir/private${seeded.bigDirectory}` }
    case 'record':
      return { method: 'GET', path: `/file/${seeded.fileId}` }
    case 'tree':
      return { method: 'GET', path: `/file/${seeded.fileId}/scene-tree` }
    case 'write':
      return {
        method: 'POST',
        path: '/scene/attributes',
        body: JSON.stringify({
          file: seeded.fileId,
          nodeIdToAttributes: { [seeded.nodeId]: { material: 'EN-GJL-250', mass: 12.5, inspected: true } },
        }),
      }
  }
}

/** One request outside the load; answers the body text, so a wrong setup fails loudly. */
async function answerOf(base: string, call: Call, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${base}${call.path}`, {
    method: call.method,
    headers: call.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(call.body === undefined ? {} : { body: call.body }),
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${call.method} ${call.path}: ${res.status} ${text}`)
  return text
}

interface Measurement {
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
  server: Server,
  call: Call,
  headers: Record<string, string>,
  options: { duration: number; connections: number },
): Promise<Measurement> {
  const run = (duration: number) =>
    autocannon({
      url: `${server.base}${call.path}`,
      method: call.method,
      headers: call.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(call.body === undefined ? {} : { body: call.body }),
      duration,
      connections: options.connections,
    })
  const cpuBefore = await server.cpuMicros()
  const result = await run(options.duration)
  const cpuAfter = await server.cpuMicros()
  return {
    requestsPerSecond: result.requests.mean,
    cpuMicrosPerRequest: (cpuAfter - cpuBefore) / Math.max(1, result.requests.total),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

interface Row {
  dialect: Dialect
  case: Case
  call: Call
  bare: Measurement[]
  ours: Measurement[]
  /** PostgreSQL listings: the bare route after one query (FloorQuery). */
  floor: Measurement[]
}

/** The directory a listing case reads (the floor server's query), or undefined for other cases. */
function listedDirectory(name: Case, seeded: Seeded): string | undefined {
  if (name === 'list10') return '/'
  if (name === 'list100') return seeded.bigDirectory
  return undefined
}

async function benchDialect(
  dialect: Dialect,
  cases: Case[],
  options: { duration: number; rounds: number; connections: number },
): Promise<Row[]> {
  const ours = await startServer('tessera', dialect)
  const others: Server[] = []
  try {
    const seeded = ours.seeded
    if (!seeded) throw new Error('the Tessera server reported no data')
    const headers = await signIn(ours.base)
    const calls = cases.map((name) => ({ name, call: callOf(name, seeded) }))
    const routes: Command & { type: 'routes' } = { type: 'routes', routes: [] }
    for (const { name, call } of calls) {
      const answer = JSON.parse(await answerOf(ours.base, call, headers)) as unknown
      const parent = listedDirectory(name, seeded)
      routes.routes.push({ method: call.method, path: call.path, answer, ...(parent ? { parent } : {}) })
    }
    const bare = await startServer('bare', dialect, routes)
    others.push(bare)
    const floor = ours.floor
      ? await startServer('floor', dialect, { ...routes, floor: ours.floor })
      : undefined
    if (floor) others.push(floor)
    const rows: Row[] = []
    for (const { name, call } of calls) {
      const row: Row = { dialect, case: name, call, bare: [], ours: [], floor: [] }
      const servers: Array<[Server, Measurement[]]> = [
        [bare, row.bare],
        [ours, row.ours],
      ]
      if (floor && listedDirectory(name, seeded)) servers.push([floor, row.floor])
      for (const [server] of servers)
        await measure(server, call, headers, { ...options, duration: WARMUP_SECONDS })
      for (let round = 0; round < options.rounds; round++) {
        // Alternating which goes first, too: neither always follows the other's load.
        const order = round % 2 === 1 ? [...servers].reverse() : servers
        for (const [server, into] of order) into.push(await measure(server, call, headers, options))
      }
      rows.push(row)
      console.log(`${dialect} ${name}: done`)
    }
    return rows
  } finally {
    for (const server of others) await server.stop()
    await ours.stop()
  }
}

/** The report's medians as history rows (bench/results.ts): req/s with its ratio, CPU, latency, floor. */
function resultRows(rows: Row[]): ResultRow[] {
  return rows.flatMap((row) => {
    const at = { dialect: row.dialect, case: row.case, baseline: 'bare Fastify route' }
    const of = (ms: Measurement[], key: 'requestsPerSecond' | 'cpuMicrosPerRequest' | 'p50' | 'p99') =>
      median(ms.map((m) => m[key]))
    const bareRps = of(row.bare, 'requestsPerSecond')
    const oursRps = of(row.ours, 'requestsPerSecond')
    const bareCpu = of(row.bare, 'cpuMicrosPerRequest')
    const oursCpu = of(row.ours, 'cpuMicrosPerRequest')
    const out: ResultRow[] = [
      {
        metric: 'req_per_s',
        value: Math.round(oursRps),
        unit: 'req/s',
        ...at,
        baselineValue: Math.round(bareRps),
        ratio: Number((oursRps / bareRps).toFixed(3)),
      },
      {
        metric: 'cpu_per_req',
        value: Math.round(oursCpu),
        unit: 'µs',
        ...at,
        baselineValue: Math.round(bareCpu),
        ratio: Number((bareCpu / oursCpu).toFixed(3)),
        ratioNote: 'bare/ours',
      },
      { metric: 'latency_p50', value: of(row.ours, 'p50'), unit: 'ms', dialect: row.dialect, case: row.case },
      { metric: 'latency_p99', value: of(row.ours, 'p99'), unit: 'ms', dialect: row.dialect, case: row.case },
    ]
    if (row.floor.length > 0) {
      const floor = Number((of(row.floor, 'requestsPerSecond') / bareRps).toFixed(3))
      out.push({ metric: 'floor_ratio', value: floor, unit: 'ratio', ...at })
    }
    return out
  })
}

function report(rows: Row[]): number {
  let status = 0
  const table = rows.map((row) => {
    const bareRps = median(row.bare.map((m) => m.requestsPerSecond))
    const oursRps = median(row.ours.map((m) => m.requestsPerSecond))
    const bareCpu = median(row.bare.map((m) => m.cpuMicrosPerRequest))
    const oursCpu = median(row.ours.map((m) => m.cpuMicrosPerRequest))
    for (const m of [...row.bare, ...row.ours, ...row.floor]) {
      if (m.non2xx > 0 || m.errors > 0) {
        console.error(
          `${row.dialect} ${row.case}: ${m.non2xx} non-2xx answers and ${m.errors} errors (must be 0)`,
        )
        status = 1
      }
    }
    const ratio = oursRps / bareRps
    if (args.check && row.case === 'list10' && ratio < TARGET_RATIO[row.dialect]) status = 1
    return {
      dialect: row.dialect,
      case: `${row.case} ${row.call.method} ${row.call.path.length > 28 ? `${row.call.path.slice(0, 27)}…` : row.call.path}`,
      'bare req/s': Math.round(bareRps),
      'ours req/s': Math.round(oursRps),
      ratio: Number(ratio.toFixed(3)),
      'bare µs/req': Math.round(bareCpu),
      'ours µs/req': Math.round(oursCpu),
      'CPU ratio': Number((bareCpu / oursCpu).toFixed(3)),
      'ours p50 ms': median(row.ours.map((m) => m.p50)),
      'ours p99 ms': median(row.ours.map((m) => m.p99)),
      ...(row.floor.length > 0
        ? { 'floor ratio': Number((median(row.floor.map((m) => m.requestsPerSecond)) / bareRps).toFixed(3)) }
        : {}),
    }
  })
  console.table(table)
  console.log(
    'ratio = ours/bare req/s (median of the rounds); CPU ratio = bare/ours server CPU per request ' +
      `(robust to other load). Targets on list10: SQLite ≥ ${TARGET_RATIO.sqlite}, PostgreSQL ≥ ${TARGET_RATIO.postgres}.` +
      '\nfloor ratio (PostgreSQL listings) = the bare route after one query of the page (7 narrow columns, a named ' +
      'prepared statement) / bare req/s: the best any design reading the database once per request reaches here.',
  )
  return status
}

const loads = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')

async function main(): Promise<number> {
  const duration = positiveInteger('duration', args.duration)
  const rounds = positiveInteger('rounds', args.rounds)
  const connections = positiveInteger('connections', args.connections)
  const dialects = dialectsOf(args.dialect)
  const cases = casesOf(args.case)
  const options = { duration, rounds, connections }

  // Bounded: warm-ups and rounds per case, start-up (seeding) and shutdown; anything beyond is a hang.
  const perCase = 2 * WARMUP_SECONDS + 2 * rounds * (duration + 1)
  const budgetMs = dialects.length * (cases.length * perCase + 240) * 1000
  const watchdog = setTimeout(() => {
    console.error(`benchmark exceeded ${budgetMs / 1000} s; aborting`)
    for (const child of children) child.kill('SIGKILL')
    process.exit(2)
  }, budgetMs)
  watchdog.unref()

  console.log(
    `autocannon: ${connections} connections; per case ${WARMUP_SECONDS} s warm-up, then ${rounds} ` +
      `alternating rounds of ${duration} s per server. Load averages (1, 5, 15 min) at start: ${loads()}`,
  )
  const rows: Row[] = []
  for (const dialect of dialects) rows.push(...(await benchDialect(dialect, cases, options)))
  const status = report(rows)
  console.log(`load averages at end: ${loads()}`)
  record('api', resultRows(rows))
  return status
}

if (args.serve !== undefined) {
  const target = args.serve
  if (target !== 'bare' && target !== 'floor' && target !== 'tessera')
    throw new Error(`--serve must be bare, floor or tessera, not "${target}"`)
  const [dialect = 'sqlite'] = dialectsOf(args.dialect)
  await serve(target, dialect)
} else {
  try {
    process.exitCode = await main()
  } catch (error) {
    console.error(error)
    for (const child of children) child.kill('SIGKILL')
    process.exitCode = 1
  }
}
