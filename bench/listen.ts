// Event stream latency (`npm run bench:listen`): commit → a line printed by `tessera listen`, the
// way an integrator watches events. Three processes: the API (bench/api.ts's server child: the
// real app on a fresh database with one account and converted-looking files), `tessera listen
// --events attribute_updated` as a child process (the CLI's own code, its stdout piped here), and
// this process, which writes attributes over HTTP (`POST /scene/attributes`, one event each, round
// robin over 100 files) at a paced rate and reads the CLI's lines.
//
// Each line carries the event's `runTimestamp` (set inside the writing transaction, just before its
// commit), so `arrival − runTimestamp` is commit → line, plus the transaction's last statements.
// All three processes share the machine's clock. Writes are paced per millisecond slot; a write that
// would exceed `--max-in-flight` is skipped (the achieved rate is reported, never hidden).
//
// `--emitter outbox` instead has the server process commit the events itself through the outbox
// (bench/listen-emitter.ts: emitEvent, one transaction each, 8 open at once): the stream at the rate
// asked for, where HTTP attribute writes cannot reach it on this machine.
//
//   npm run bench:listen -- [--dialect sqlite|postgres|both] [--emitter http,outbox]
//     [--rates 200,1000] [--seconds 5] [--connections 32] [--max-in-flight 256]
//
// --dialect postgres (and both) needs TESSERA_DATABASE_URL; the run uses a fresh schema and drops it.
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { loadavg } from 'node:os'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import type { Seeded } from './api-seed.ts'
import type { EmitReport, EmitRequest } from './listen-emitter.ts'
import { pacedRun } from './pacing.ts'
import { type ResultRow, record } from './results.ts'

const API_BENCH = fileURLToPath(new URL('./api.ts', import.meta.url))
const BIN = fileURLToPath(import.meta.resolve('@tessera/cli/bin/tessera.js'))
const USERNAME = 'bench'
const PASSWORD = 'benchmark password'
const DRAIN_MS = 15_000
/** Emitting transactions open at once with --emitter outbox (the PostgreSQL pool has 10 connections). */
const OUTBOX_CONCURRENCY = 8

type Dialect = 'sqlite' | 'postgres'

const { values: args } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'sqlite' },
    rates: { type: 'string', default: '200,1000' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    'max-in-flight': { type: 'string', default: '256' },
    emitter: { type: 'string', default: 'http,outbox' },
  },
})

function positiveInteger(name: string, raw: string): number {
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, not "${raw}"`)
  return n
}

const children = new Set<ChildProcess>()

type Emitter = 'http' | 'outbox'

interface Server {
  base: string
  seeded: Seeded
  /** Asks the server process to commit events itself (listen-emitter.ts). */
  emit(request: EmitRequest): Promise<EmitReport>
  stop(): Promise<void>
}

/** bench/api.ts's Tessera server child (fresh database, one account, seeded files). */
function startServer(dialect: Dialect): Promise<Server> {
  const child = fork(API_BENCH, ['--serve', 'tessera', '--dialect', dialect], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  children.add(child)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 120 s')), 120_000)
    child.once('exit', (code) => reject(new Error(`the server exited with code ${code} before listening`)))
    child.once('message', (message: { type: string; port: number; seeded: Seeded }) => {
      clearTimeout(timer)
      resolve({
        base: `http://127.0.0.1:${message.port}`,
        seeded: message.seeded,
        emit(request) {
          return new Promise((resolveEmit) => {
            child.once('message', (reply: EmitReport) => resolveEmit(reply))
            child.send(request)
          })
        },
        async stop() {
          child.send({ type: 'stop' })
          const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
          await exited
          clearTimeout(kill)
          children.delete(child)
        },
      })
    })
  })
}

/** `tessera listen` as a user runs it; resolves once it printed "Ready". */
function startListener(base: string, onEvent: (runTimestamp: number, arrival: number) => void) {
  const child = spawn(process.execPath, [BIN, 'listen', '--url', base, '--events', 'attribute_updated'], {
    env: { ...process.env, TESSERA_USERNAME: USERNAME, TESSERA_PASSWORD: PASSWORD, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.add(child)
  const lines = createInterface({ input: child.stdout })
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('tessera listen was not ready within 30 s')), 30_000)
    child.once('exit', (code) => reject(new Error(`tessera listen exited with code ${code}`)))
    lines.on('line', (line) => {
      const arrival = Date.now()
      if (line.startsWith('Ready')) {
        clearTimeout(timer)
        resolve()
        return
      }
      // "2026-11-25T21:40:00.123Z  attribute_updated  file <id>  <uuid>"
      const match = /^(\S+Z)\s+attribute_updated\s/.exec(line)
      if (match?.[1]) onEvent(Date.parse(match[1]), arrival)
    })
  })
  return {
    ready,
    stop() {
      child.kill('SIGTERM')
      children.delete(child)
    },
  }
}

async function signIn(base: string): Promise<Record<string, string>> {
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? '' : JSON.stringify(body),
    })
    if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`)
    return res.json() as Promise<{ cookies?: string; jwt?: string }>
  }
  const login = await post('/account/login/', { username: USERNAME, password: PASSWORD })
  const authorization = `Bearer ${String(login.cookies).slice('jsonwebtoken='.length)}`
  const session = await post('/account/session', undefined, { authorization })
  return { authorization, 'x-service-session': String(session.jwt), 'content-type': 'application/json' }
}

/** The seeded files of the 100-file folder, each with a node of its tree (api-seed.ts's ids). */
async function targetsOf(base: string, headers: Record<string, string>, seeded: Seeded): Promise<Target[]> {
  const res = await fetch(`${base}/file/dir/private${seeded.bigDirectory}`, { headers })
  if (res.status !== 200) throw new Error(`listing: ${res.status} ${await res.text()}`)
  const { files } = (await res.json()) as { files: Array<{ _id: string }> }
  const nodeOf = (id: string) => createHash('sha256').update(`${id}/0`).digest('hex').slice(0, 16)
  return files.map((file) => ({ file: file._id, node: nodeOf(file._id) }))
}

interface Target {
  file: string
  node: string
}

interface Paced {
  sent: number
  ok: number
  failed: number
  skipped: number
  ms: number
}

/** Attribute writes at `rate` per second for `seconds`, each slot a millisecond boundary. */
async function writeAtRate(
  pool: Pool,
  headers: Record<string, string>,
  targets: Target[],
  rate: number,
  seconds: number,
  maxInFlight: number,
): Promise<Paced> {
  const tally: Paced = { sent: 0, ok: 0, failed: 0, skipped: 0, ms: 0 }
  const run = await pacedRun(rate, rate * seconds, maxInFlight, async (i) => {
    // Round-robin over 100 files: writes to one file serialize on its lock, as they should.
    const target = targets[i % targets.length] as Target
    const body = JSON.stringify({
      file: target.file,
      nodeIdToAttributes: { [target.node]: { sequence: i, inspected: true } },
    })
    try {
      const res = await pool.request({ method: 'POST', path: '/scene/attributes', headers, body })
      await res.body.dump()
      if (res.statusCode === 200) tally.ok++
      else tally.failed++
    } catch {
      tally.failed++
    }
  })
  tally.sent = run.started
  tally.skipped = run.skipped
  tally.ms = run.ms
  return tally
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

interface Row {
  dialect: Dialect
  emitter: Emitter
  rate: number
  paced: Paced
  received: number
  latencies: number[]
}

async function benchRate(
  server: Server,
  dialect: Dialect,
  emitter: Emitter,
  rate: number,
  seconds: number,
): Promise<Row> {
  const latencies: number[] = []
  const listener = startListener(server.base, (runTimestamp, arrival) =>
    latencies.push(arrival - runTimestamp),
  )
  await listener.ready
  const pool = new Pool(server.base, { connections: positiveInteger('connections', args.connections) })
  try {
    const maxInFlight = positiveInteger('max-in-flight', args['max-in-flight'])
    let paced: Paced
    if (emitter === 'http') {
      const headers = await signIn(server.base)
      const targets = await targetsOf(server.base, headers, server.seeded)
      paced = await writeAtRate(pool, headers, targets, rate, seconds, maxInFlight)
    } else {
      const emitted = await server.emit({ type: 'emit', rate, seconds, concurrency: OUTBOX_CONCURRENCY })
      paced = {
        sent: emitted.committed,
        ok: emitted.committed,
        failed: 0,
        skipped: emitted.skipped,
        ms: emitted.ms,
      }
    }
    const deadline = Date.now() + DRAIN_MS
    while (latencies.length < paced.ok && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    return {
      dialect,
      emitter,
      rate,
      paced,
      received: latencies.length,
      latencies: latencies.sort((a, b) => a - b),
    }
  } finally {
    listener.stop()
    await pool.close()
  }
}

function report(rows: Row[]): void {
  console.log(
    '\n| dialect | emitter | target rate | writes ok | achieved rate | lines received | p50 ms | p99 ms | max ms |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const row of rows) {
    const achieved = Math.round((row.paced.ok * 1000) / row.paced.ms)
    const lat = row.latencies
    const extra =
      row.paced.skipped + row.paced.failed > 0
        ? ` (${row.paced.skipped} skipped, ${row.paced.failed} failed)`
        : ''
    console.log(
      `| ${row.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | ${row.emitter} | ${row.rate}/s | ${row.paced.ok}${extra} | ${achieved}/s | ${row.received} | ${percentile(lat, 50)} | ${percentile(lat, 99)} | ${lat.at(-1) ?? '-'} |`,
    )
  }
}

/** The table's figures as history rows (bench/results.ts). */
function resultRows(rows: Row[]): ResultRow[] {
  return rows.flatMap((row) => {
    const at = {
      dialect: row.dialect,
      case: row.emitter,
      rate: row.rate,
      achieved: Math.round((row.paced.ok * 1000) / row.paced.ms),
      committed: row.paced.ok,
      lines: row.received,
    }
    const lat = row.latencies
    return [
      { metric: 'latency_p50', value: percentile(lat, 50), unit: 'ms', ...at },
      { metric: 'latency_p99', value: percentile(lat, 99), unit: 'ms', ...at },
      { metric: 'latency_max', value: lat.at(-1) ?? Number.NaN, unit: 'ms', ...at },
    ].filter((r) => Number.isFinite(r.value))
  })
}

async function main(): Promise<number> {
  const dialects: Dialect[] = args.dialect === 'both' ? ['sqlite', 'postgres'] : [args.dialect as Dialect]
  for (const d of dialects) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`unknown dialect ${d}`)
  const rates = args.rates.split(',').map((r) => positiveInteger('rates', r))
  const seconds = positiveInteger('seconds', args.seconds)
  const emitters = args.emitter.split(',') as Emitter[]
  for (const e of emitters) if (e !== 'http' && e !== 'outbox') throw new Error(`unknown emitter ${e}`)
  const budgetMs =
    dialects.length * (emitters.length * rates.length * (seconds * 1000 + DRAIN_MS + 35_000) + 130_000)
  const watchdog = setTimeout(() => {
    console.error(`benchmark exceeded ${budgetMs / 1000} s; aborting`)
    for (const child of children) child.kill('SIGKILL')
    process.exit(2)
  }, budgetMs)
  watchdog.unref()
  console.log(
    `load averages at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  )
  const rows: Row[] = []
  let missing = 0
  for (const dialect of dialects) {
    const server = await startServer(dialect)
    try {
      for (const emitter of emitters)
        for (const rate of rates) {
          const row = await benchRate(server, dialect, emitter, rate, seconds)
          missing += row.paced.ok - row.received
          rows.push(row)
        }
    } finally {
      await server.stop()
    }
  }
  report(rows)
  record('listen', resultRows(rows))
  console.log(
    `load averages at end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  )
  if (missing > 0) console.error(`${missing} committed writes never printed a line`)
  return missing > 0 ? 1 : 0
}

try {
  process.exitCode = await main()
} catch (error) {
  console.error(error)
  for (const child of children) child.kill('SIGKILL')
  process.exitCode = 1
}
