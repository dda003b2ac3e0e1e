// Webhook delivery benchmark (`npm run bench:delivery`). In one run, against one local receiver:
//   (a) raw: a loop of undici POSTs of a delivery-sized JSON body, `--concurrency` at a time;
//   (b) engine: the same number of events emitted through the outbox (emitEvent, one transaction
//       each, by `--emitters` concurrent callers: 1 by default, i.e. every emit waits for the
//       commit before it) and delivered by the in-process DeliveryWorker to a webhook on that
//       receiver, timed from the first emit to the last arrival;
//   (c) latency: events emitted at a paced `--rate` (default 1,000/s) for `--seconds`; the receiver
//       measures emit-to-arrival time of each (the emit time travels in the event data).
// (a) and (b) alternate for `--rounds` rounds (default 3): a 2-core machine shared with other work
// drifts by ±15 % within seconds, so one pair alone says little. Prints both rates and their ratio
// (engine / raw) per round, the median ratio, and the latency p50/p99.
//
// The receiver runs in a child process (this file with `--receiver`), so it never shares an event
// loop with the sender. The engine runs as `tessera serve` runs it: API, outbox and worker in one
// process, webhooks allowed to loopback, TESSERA_WEBHOOK_MAX_IN_FLIGHT attempts per webhook; the
// raw loop uses the same concurrency so the ratio compares like with like.
//
//   npm run bench:delivery -- [--events 5000] [--rate 1000] [--seconds 5] [--dialect sqlite|postgres]
//                             [--concurrency 8] [--emitters 1] [--rounds 3] [--check]
//
// --dialect postgres needs TESSERA_DATABASE_URL (or TESSERA_TEST_DATABASE_URL); a fresh schema is
// used and dropped. --check exits non-zero when a target is missed (SQLite: median ratio >= 0.5, p99 < 50 ms).
import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { Agent, request } from 'undici'
import { buildApp } from '../packages/server/src/app.ts'
import { createAccount } from '../packages/server/src/modules/accounts/index.ts'
import { emitEvent } from '../packages/server/src/modules/webhooks/index.ts'
import { loadConfig } from '../packages/server/src/platform/config.ts'
import { type Db, migrate, openDatabase } from '../packages/server/src/platform/db/index.ts'

const TARGET_RATIO = 0.5
const TARGET_P99_MS = 50
const EVENT = 'attribute_updated'
const FILE_ID = '0123456789abcdef01234567'

/** Parent → receiver. */
type Command = { type: 'reset' } | { type: 'stats' }
/** Receiver → parent. */
type Reply = { type: 'ready'; port: number } | { type: 'stats'; count: number; latencies: number[] }

const { values: args } = parseArgs({
  options: {
    receiver: { type: 'boolean', default: false },
    events: { type: 'string', default: '5000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '' },
    emitters: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    dialect: { type: 'string', default: 'sqlite' },
    check: { type: 'boolean', default: false },
  },
})

/** Sub-millisecond wall-clock time, comparable across processes on one machine. */
const nowMs = () => performance.timeOrigin + performance.now()

// ---- receiver (child process) --------------------------------------------------------------------

async function receiver(): Promise<void> {
  let count = 0
  let latencies: number[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const arrived = nowMs()
      const envelope = JSON.parse(Buffer.concat(chunks).toString()) as { data?: { t?: number } }
      count += 1
      if (typeof envelope.data?.t === 'number') latencies.push(arrived - envelope.data.t)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"success":true}')
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  process.on('message', (message: Command) => {
    if (message.type === 'reset') {
      count = 0
      latencies = []
    }
    process.send?.({ type: 'stats', count, latencies } satisfies Reply)
  })
  process.on('disconnect', () => process.exit(0))
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies Reply)
}

class ReceiverProcess {
  constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<ReceiverProcess> {
    const child = fork(fileURLToPath(import.meta.url), ['--receiver'], { stdio: 'inherit' })
    const [ready] = (await once(child, 'message')) as [Reply]
    if (ready.type !== 'ready') throw new Error('receiver did not start')
    return new ReceiverProcess(child, `http://127.0.0.1:${ready.port}/hook`)
  }

  ask(command: Command): Promise<{ count: number; latencies: number[] }> {
    this.child.send(command)
    return once(this.child, 'message').then(([reply]) => reply as { count: number; latencies: number[] })
  }

  /** Polls until the receiver has seen `count` requests since the last reset. */
  async waitFor(count: number, timeoutMs = 120_000): Promise<{ count: number; latencies: number[] }> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const stats = await this.ask({ type: 'stats' })
      if (stats.count >= count) return stats
      if (Date.now() > deadline) throw new Error(`receiver saw ${stats.count} of ${count} in time`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }

  stop(): void {
    this.child.disconnect()
  }
}

// ---- (a) raw undici loop -------------------------------------------------------------------------

async function rawLoop(url: string, total: number, concurrency: number): Promise<number> {
  const agent = new Agent()
  const body = JSON.stringify(envelope(0))
  let next = 0
  const started = nowMs()
  const lane = async () => {
    while (next < total) {
      next += 1
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
        body,
      })
      const answer = (await res.body.json()) as { success?: boolean }
      if (res.statusCode !== 200 || answer.success !== true) throw new Error('receiver refused')
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
  const elapsed = nowMs() - started
  await agent.close()
  return (total / elapsed) * 1000
}

function envelope(seq: number) {
  return {
    file: FILE_ID,
    event: EVENT,
    data: { nodeIdToAttributes: { [`node-${seq}`]: { color: 'red' } }, user: { email: 'bench@example.com' } },
    owner: 'bench@example.com',
    runTimestamp: Date.now(),
    uuid: randomUUID(),
  }
}

// ---- (b, c) the engine ---------------------------------------------------------------------------

interface Engine {
  app: FastifyInstance
  db: Db
  ownerId: string
  close(): Promise<void>
}

async function startEngine(dialect: string, receiverUrl: string, concurrency: number): Promise<Engine> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-'))
  const env = {
    TESSERA_DATA_DIR: dataDir,
    TESSERA_LOG_LEVEL: 'warn',
    TESSERA_WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    TESSERA_WEBHOOK_MAX_IN_FLIGHT: String(concurrency),
  }
  let db: Db
  let dropDb: () => Promise<void> = async () => {}
  let app: FastifyInstance
  if (dialect === 'postgres') {
    const url = process.env.TESSERA_DATABASE_URL || process.env.TESSERA_TEST_DATABASE_URL
    if (!url) throw new Error('--dialect postgres needs TESSERA_DATABASE_URL')
    const schema = `bench_${process.pid}_${randomBytes(4).toString('hex')}`
    const pgDb = await openDatabase({ databaseUrl: url, dataDir, pgSchema: schema })
    db = pgDb
    dropDb = async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query(`drop schema if exists ${schema} cascade`)
      await client.end()
    }
    await migrate(pgDb)
    app = await buildApp(loadConfig({ ...env, TESSERA_DATABASE_URL: url }), { db: pgDb })
  } else if (dialect === 'sqlite') {
    db = await openDatabase({ databaseUrl: undefined, dataDir })
    await migrate(db)
    app = await buildApp(loadConfig(env), { db })
  } else {
    throw new Error(`--dialect must be sqlite or postgres, not "${dialect}"`)
  }
  await app.ready()
  const account = await createAccount(app.ctx, {
    email: 'bench@example.com',
    username: 'bench',
    password: 'benchmark password',
  })
  const token = await app.ctx.tokens.signAuthToken(account.id, 3_600_000)
  const res = await app.inject({
    method: 'PUT',
    url: '/webhook/',
    headers: { authorization: `Bearer ${token}` },
    payload: { event: EVENT, url: receiverUrl, secretToken: 'k7Qx-9vR2mWp4ZtL8bNc' },
  })
  if (res.statusCode !== 200) throw new Error(`webhook registration failed: ${res.body}`)
  return {
    app,
    db,
    ownerId: account.id,
    async close() {
      await app.close()
      await db.close()
      await dropDb()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

async function emit(engine: Engine, seq: number): Promise<void> {
  const data = { nodeIdToAttributes: { [`node-${seq}`]: { color: 'red' } }, t: nowMs() }
  await engine.db.kysely
    .transaction()
    .execute((tx) =>
      emitEvent(engine.app.ctx, tx, { event: EVENT, fileId: FILE_ID, fileOwnerId: engine.ownerId, data }),
    )
}

async function engineThroughput(
  engine: Engine,
  rx: ReceiverProcess,
  total: number,
  emitters: number,
): Promise<number> {
  await rx.ask({ type: 'reset' })
  const started = nowMs()
  let next = 0
  // Each emitter is one caller (an API request) committing its events one transaction at a time.
  const emitter = async () => {
    while (next < total) {
      const seq = next++
      await emit(engine, seq)
      // Give the worker (same process, as in `tessera serve`) its turns while events keep coming.
      await yieldToLoop()
    }
  }
  await Promise.all(Array.from({ length: emitters }, emitter))
  await rx.waitFor(total)
  return (total / (nowMs() - started)) * 1000
}

async function pacedLatency(engine: Engine, rx: ReceiverProcess, rate: number, seconds: number) {
  await rx.ask({ type: 'reset' })
  const total = Math.round(rate * seconds)
  const started = nowMs()
  for (let seq = 0; seq < total; seq += 1) {
    const due = started + (seq * 1000) / rate
    const wait = due - nowMs()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    await emit(engine, seq)
  }
  const emitSeconds = (nowMs() - started) / 1000
  const { latencies } = await rx.waitFor(total)
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN
  return { total, achievedRate: total / emitSeconds, p50: at(0.5), p99: at(0.99), max: at(1) }
}

async function main(): Promise<void> {
  const events = Number(args.events)
  const rate = Number(args.rate)
  const seconds = Number(args.seconds)
  const concurrency = Number(args.concurrency || process.env.TESSERA_WEBHOOK_MAX_IN_FLIGHT || 8)
  const emitters = Number(args.emitters)
  if (!Number.isInteger(emitters) || emitters < 1) throw new Error('--emitters must be a whole number >= 1')
  const rounds = Number(args.rounds)
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number >= 1')
  const rx = await ReceiverProcess.start()
  let engine: Engine | undefined
  try {
    // Warm up both paths (JIT, connections, statement caches) before measuring.
    await rawLoop(rx.url, Math.min(1000, events), concurrency)
    engine = await startEngine(args.dialect, rx.url, concurrency)
    await engineThroughput(engine, rx, Math.min(1000, events), emitters)
    const f = (n: number) => n.toFixed(1)
    console.log(
      `webhook delivery benchmark (${args.dialect}, ${events} events, concurrency ${concurrency}, ` +
        `${emitters} emitter${emitters === 1 ? '' : 's'}, ${rounds} round${rounds === 1 ? '' : 's'})`,
    )
    const ratios: number[] = []
    for (let round = 1; round <= rounds; round++) {
      const raw = await rawLoop(rx.url, events, concurrency)
      const delivered = await engineThroughput(engine, rx, events, emitters)
      ratios.push(delivered / raw)
      console.log(
        `  round ${round}: (a) raw undici POST loop ${f(raw)} req/s, ` +
          `(b) outbox + delivery engine ${f(delivered)} events/s (emit to last arrival), ` +
          `ratio ${(delivered / raw).toFixed(3)}`,
      )
    }
    ratios.sort((a, b) => a - b)
    const ratio = ratios[Math.floor((ratios.length - 1) / 2)] as number
    console.log(`  ratio (b / a), median of ${rounds}       ${ratio.toFixed(3)}  (target >= ${TARGET_RATIO})`)
    const latency = await pacedLatency(engine, rx, rate, seconds)
    console.log(
      `  (c) latency at ${rate}/s (${latency.total} events, emitted at ${f(latency.achievedRate)}/s): ` +
        `p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms, max ${latency.max.toFixed(2)} ms ` +
        `(target p99 < ${TARGET_P99_MS} ms)`,
    )
    if (args.check && (ratio < TARGET_RATIO || !(latency.p99 < TARGET_P99_MS))) process.exitCode = 1
  } finally {
    await engine?.close()
    rx.stop()
  }
}

if (args.receiver) await receiver()
else await main()
