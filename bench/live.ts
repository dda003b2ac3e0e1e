// Live sessions benchmark (`npm run bench:live`, docs/benchmarks.md): two `tessera-server serve`
// processes on one PostgreSQL database, participants of one file split between them, each sending
// its camera at --rate per second. Measures camera → every other participant's receipt (p50/p99,
// this process's clock on both ends), the servers' CPU time per camera update, and a bare `ws`
// relay in a child process (every frame to every other client, no auth, no parsing) driven the same
// way in the same run as the baseline. Then one server is SIGKILLed mid-session: its participants
// reconnect to the other with `resume`, and the time until they are welcomed again and until every
// participant sees everyone is reported, and presence is checked again past the heartbeat expiry.
//
//   TESSERA_DATABASE_URL=postgres://… npm run bench:live -- [--participants 2,10,50] [--rate 5] [--seconds 8]
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { freePort } from './local.ts'
import {
  BARE_RELAY,
  connect,
  drive,
  type Participant,
  percentile,
  type Recorder,
} from './peers/live-client.ts'
import { type Seeded, seedLiveFile } from './peers/live-seed.ts'
import { type ResultRow, record } from './results.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const BIN = path.join(ROOT, 'packages/server/bin/tessera-server.js')
const { values: args } = parseArgs({
  options: {
    participants: { type: 'string', default: '2,10,50' },
    rate: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '8' },
  },
})
const RATE = Number(args.rate)
const SECONDS = Number(args.seconds)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** User + system CPU time of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

interface Server {
  base: string
  child: ChildProcess
}

async function startServer(env: NodeJS.ProcessEnv, extra: string[]): Promise<Server> {
  const port = await freePort()
  const child = spawn(process.execPath, [BIN, 'serve', ...extra], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const base = `http://127.0.0.1:${port}`
  for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
    if (Date.now() > deadline) throw new Error('a server did not start')
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { base, child }
  }
}

async function startRelay(): Promise<{ url: string; child: ChildProcess }> {
  const child = fork('--input-type=module', [], {
    execArgv: ['--input-type=module', '-e', BARE_RELAY],
    cwd: ROOT,
  })
  const [message] = (await once(child, 'message')) as [{ port: number }]
  return { url: `ws://127.0.0.1:${message.port}/`, child }
}

interface Run {
  participants: Participant[]
  rec: Recorder
}

async function join(
  urls: string[],
  headers: Array<Record<string, string>>,
  n: number,
  live: boolean,
): Promise<Run> {
  const rec: Recorder = { latencies: [], received: 0, sent: 0 }
  const participants: Participant[] = []
  for (let i = 0; i < n; i++) {
    const p = {
      index: i,
      you: null,
      present: new Set<string>(),
      welcomedAt: 0,
      server: urls[i % urls.length] ?? '',
    }
    participants.push(p as unknown as Participant)
  }
  await Promise.all(participants.map((p, i) => connect(p, rec, live ? (headers[i] ?? {}) : {}, live)))
  if (live) await until(() => participants.every((p) => p.present.size === n), 10_000)
  return { participants, rec }
}

async function until(done: () => boolean, ms: number): Promise<number> {
  const started = performance.now()
  while (!done()) {
    if (performance.now() - started > ms) throw new Error('timed out')
    await sleep(5)
  }
  return performance.now() - started
}

function summary(rec: Recorder, n: number) {
  const sorted = rec.latencies.sort((a, b) => a - b)
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    delivered: rec.received / Math.max(1, rec.sent * (n - 1)),
  }
}

const liveUrl = (server: Server, fileId: string) =>
  `${server.base.replace('http', 'ws')}/live/files/${fileId}`

async function measure(servers: Server[], relay: string, seeded: Seeded, n: number) {
  const { headers } = seeded
  const live = await join(
    servers.map((s) => liveUrl(s, seeded.fileId)),
    headers,
    n,
    true,
  )
  // The servers' CPU over the driven seconds, idle work (heartbeats, workers' polls) included: with
  // /proc's 10 ms ticks, subtracting an idle sample taken apart came out below zero at low load.
  // The idle rate with these participants connected is reported beside it.
  const idleFrom = servers.map((s) => cpuMs(s.child.pid))
  await sleep(2000)
  const idleMsPerS = servers.reduce((sum, s, i) => sum + cpuMs(s.child.pid) - (idleFrom[i] ?? 0), 0) / 2
  const before = servers.map((s) => cpuMs(s.child.pid))
  await drive(live.participants, live.rec, RATE, SECONDS * 1000)
  const cpu = servers.reduce((sum, s, i) => sum + cpuMs(s.child.pid) - (before[i] ?? 0), 0)
  for (const p of live.participants) p.ws.close()
  const bare = await join([relay], headers, n, false)
  await drive(bare.participants, bare.rec, RATE, SECONDS * 1000)
  for (const p of bare.participants) p.ws.close()
  await sleep(500)
  return {
    tessera: summary(live.rec, n),
    bare: summary(bare.rec, n),
    cpuPerUpdate: cpu / Math.max(1, live.rec.sent),
    idleMsPerS,
  }
}

/**
 * n participants across both servers, cameras flowing; server B is SIGKILLed; its participants
 * reconnect to A with `resume` 100 ms after their socket closed (a client's first backoff step).
 */
async function killOne(servers: [Server, Server], seeded: Seeded, n: number) {
  const [a, b] = servers
  const urlA = liveUrl(a, seeded.fileId)
  const run = await join([urlA, liveUrl(b, seeded.fileId)], seeded.headers, n, true)
  const driving = drive(run.participants, run.rec, RATE, 12_000)
  await sleep(2000)
  const moved = run.participants.filter((p) => p.server !== urlA)
  const killedAt = performance.now()
  b.child.kill('SIGKILL')
  for (const p of moved) {
    p.ws.once('close', () => {
      p.server = urlA
      void sleep(100).then(() => connect(p, run.rec, seeded.headers[p.index] ?? {}, true))
    })
  }
  await until(() => moved.every((p) => p.welcomedAt > killedAt), 10_000)
  const resumed = Math.max(...moved.map((p) => p.welcomedAt - killedAt))
  await until(() => run.participants.every((p) => p.present.size === n), 10_000)
  const whole = performance.now() - killedAt
  // Past the dead process's heartbeat expiry (4 s): nobody may have been dropped.
  await sleep(5000)
  const stillWhole = run.participants.every((p) => p.present.size === n)
  const ids = new Set(run.participants.map((p) => p.you))
  await driving
  for (const p of run.participants) p.ws.close()
  return { resumed, whole, stillWhole, sameIds: ids.size === n }
}

function print(n: number, m: Awaited<ReturnType<typeof measure>>): ResultRow[] {
  const f = (x: number) => x.toFixed(1)
  console.log(
    `${String(n).padStart(3)} participants: tessera p50 ${f(m.tessera.p50)} p99 ${f(m.tessera.p99)} ms ` +
      `(delivered ${(m.tessera.delivered * 100).toFixed(1)} %), bare ws p50 ${f(m.bare.p50)} p99 ${f(m.bare.p99)} ms; ` +
      `p99 ratio ${(m.tessera.p99 / m.bare.p99).toFixed(2)}; server CPU ${f(m.cpuPerUpdate * 1000)} µs per update (idle included; idle ${f(m.idleMsPerS)} ms/s)`,
  )
  const base = { case: `${n} participants`, dialect: 'postgres', baseline: 'bare ws relay' }
  return [
    { ...base, metric: 'p50', value: m.tessera.p50, unit: 'ms', ratio: m.tessera.p50 / m.bare.p50 },
    { ...base, metric: 'p99', value: m.tessera.p99, unit: 'ms', ratio: m.tessera.p99 / m.bare.p99 },
    { ...base, metric: 'cpu per update', value: m.cpuPerUpdate * 1000, unit: 'µs' },
  ]
}

async function main(): Promise<void> {
  const url = process.env.TESSERA_DATABASE_URL ?? process.env.TESSERA_TEST_DATABASE_URL
  if (!url) throw new Error('bench:live needs TESSERA_DATABASE_URL (PostgreSQL)')
  const counts = String(args.participants).split(',').map(Number)
  const max = Math.max(...counts)
  const schema = `bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`create schema ${schema}`)
  const withSchema = new URL(url)
  withSchema.searchParams.set('options', `-c search_path=${schema}`)
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-live-'))
  const env = {
    ...process.env,
    TESSERA_DATA_DIR: dataDir,
    TESSERA_DATABASE_URL: withSchema.toString(),
    TESSERA_LOG_LEVEL: 'warn',
    TESSERA_LICENSES: '1000',
  }
  const a = await startServer(env, [])
  const b = await startServer(env, ['--no-workers'])
  const relay = await startRelay()
  const rows: ResultRow[] = []
  try {
    const seeded = await seedLiveFile(env, a.base, max)
    for (const n of counts) rows.push(...print(n, await measure([a, b], relay.url, seeded, n)))
    const kill = await killOne([a, b], seeded, max)
    console.log(
      `kill one of two servers with ${max} participants: resumed on the other in ${kill.resumed.toFixed(0)} ms, ` +
        `presence whole after ${kill.whole.toFixed(0)} ms, still whole past the expiry: ${kill.stillWhole}, ` +
        `participant ids kept: ${kill.sameIds}`,
    )
    rows.push({
      case: `kill, ${max} participants`,
      dialect: 'postgres',
      metric: 'resume',
      value: kill.resumed,
      unit: 'ms',
    })
    record('live', rows)
  } finally {
    for (const child of [a.child, b.child, relay.child]) child.kill('SIGTERM')
    await sleep(1000)
    await admin.query(`drop schema if exists ${schema} cascade`)
    await admin.end()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
