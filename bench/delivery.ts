// Webhook delivery benchmark (`npm run bench:delivery`): Tessera's outbox and delivery engine, on
// SQLite and on PostgreSQL, against the queue libraries a team would otherwise pick (`--peer`:
// BullMQ on Redis, graphile-worker, pg-boss; bench/peers/), all doing the same work in one run:
// a durable enqueue per event, then an undici POST of the same envelope and headers to one local
// receiver, `--concurrency` at a time, success only on 200 + JSON `success: true`.
//
//   throughput: `--events` events enqueued by `--producers` concurrent producers (each awaits its
//     enqueue: 1 by default, so every enqueue waits for the previous commit), timed from the first
//     enqueue to the last arrival; systems alternate within each of `--rounds` rounds, together
//     with a raw undici POST loop (the ceiling), and the medians are reported;
//   latency: events enqueued at each paced `--rates` (events/s) for `--seconds`, in every round
//     after the throughput phases (same alternating order); the receiver measures each one's
//     enqueue-to-arrival time (the enqueue time travels in the event data); p50 and p99 are the
//     medians over the rounds. Every phase waits for a quiet machine first (under 30 % busy for
//     0.5 s, at most 15 s), so that no system runs while the previous one still works behind.
//
// The receiver runs in a child process (bench/peers/receiver.ts), so it never shares an event loop
// with the systems. See docs/benchmarks.md.
//
//   npm run bench:delivery -- [--dialect sqlite,postgres] [--peer bullmq,graphile-worker,pg-boss]
//     (also sqlite-split and postgres-split: Tessera's delivery worker in a process of its own;
//     graphile-worker-tx: add_job inside BEGIN/COMMIT, as an outbox enqueues; graphile-worker-split:
//     its runner in a process of its own; one graphile-worker variant per run)
//     [--events 5000] [--producers 1] [--concurrency 8] [--rounds 3] [--rates 400,1000]
//     [--seconds 5] [--check] [--cpu-prof-dir DIR]
//
// --cpu-prof-dir DIR: a CPU profile of this process during each system's first throughput phase,
// written to DIR and summed up by function on the console (bench/peers/phase-profile.ts).
//
// PostgreSQL (Tessera's dialect and the PostgreSQL peers) needs TESSERA_DATABASE_URL (or
// TESSERA_TEST_DATABASE_URL); every system gets a fresh schema, dropped after.
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'
import { startBullmq } from './peers/bullmq.ts'
import type { System, SystemOptions } from './peers/common.ts'
import { startGraphileWorker, startGraphileWorkerInTransaction } from './peers/graphile-worker.ts'
import { startGraphileWorkerSplit } from './peers/graphile-worker-split.ts'
import { type CpuUse, cpuBetween, readMachineCpu, settle } from './peers/machine-cpu.ts'
import { startPgBoss } from './peers/pg-boss.ts'
import { profiled } from './peers/phase-profile.ts'
import { nowMs, ReceiverProcess } from './peers/receiver.ts'
import { deliveryRows } from './peers/results.ts'
import { checkTargets, type Figures, median, report } from './peers/targets.ts'
import { startTessera } from './peers/tessera.ts'
import { record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    dialect: { type: 'string', default: '' },
    peer: { type: 'string', multiple: true, default: [] },
    events: { type: 'string', default: '5000' },
    producers: { type: 'string', default: '' },
    emitters: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '' },
    rounds: { type: 'string', default: '3' },
    rates: { type: 'string', default: '400,1000' },
    rate: { type: 'string', default: '' },
    seconds: { type: 'string', default: '5' },
    check: { type: 'boolean', default: false },
    'cpu-prof-dir': { type: 'string' },
  },
})

const STARTERS: Record<string, (options: SystemOptions) => Promise<System>> = {
  sqlite: (o) => startTessera('sqlite', o),
  postgres: (o) => startTessera('postgres', o),
  'sqlite-split': (o) => startTessera('sqlite', o, true),
  'postgres-split': (o) => startTessera('postgres', o, true),
  bullmq: startBullmq,
  'graphile-worker': startGraphileWorker,
  'graphile-worker-tx': startGraphileWorkerInTransaction,
  'graphile-worker-split': startGraphileWorkerSplit,
  'pg-boss': startPgBoss,
}

const list = (values: string[]) => values.flatMap((v) => v.split(',')).filter((v) => v !== '')

function wholeNumber(name: string, text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1`)
  return n
}

async function rawLoop(url: string, total: number, concurrency: number): Promise<number> {
  const agent = new Agent()
  const body = JSON.stringify({
    file: 'f',
    event: 'e',
    data: { t: 0 },
    owner: 'o',
    runTimestamp: 0,
    uuid: 'u',
  })
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

interface Throughput {
  rate: number
  /** The whole machine's CPU over the phase (null without /proc/stat). */
  cpu: CpuUse | null
  /** This process's CPU over the phase, user and system, in µs (process.cpuUsage). */
  ownUs: number
  /** This process's event-loop utilization over the phase (0–1). */
  eventLoop: number
}

/** Events per second from the first enqueue to the last arrival, and the machine's CPU meanwhile. */
async function throughput(
  system: System,
  rx: ReceiverProcess,
  total: number,
  producers: number,
): Promise<Throughput> {
  await rx.ask({ type: 'reset' })
  const cpuBefore = readMachineCpu()
  const ownBefore = process.cpuUsage()
  const loopBefore = performance.eventLoopUtilization()
  const started = nowMs()
  let next = 0
  const producer = async () => {
    while (next < total) {
      const seq = next++
      await system.enqueue(seq, nowMs())
      // Each producer is one caller (an API request) awaiting its enqueue; the workers, in the same
      // process as with `tessera serve`, get their turns while events keep coming.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  await Promise.all(Array.from({ length: producers }, producer))
  await rx.waitFor(total)
  const rate = (total / (nowMs() - started)) * 1000
  const own = process.cpuUsage(ownBefore)
  const eventLoop = performance.eventLoopUtilization(loopBefore).utilization
  return { rate, cpu: cpuBetween(cpuBefore, readMachineCpu()), ownUs: own.user + own.system, eventLoop }
}

interface Paced {
  rate: number
  achieved: number
  p50: number
  p99: number
}

/** The medians of a rate's phases over the rounds, with every round's p99. */
function medianLatency(rate: number, phases: Paced[]): Figures['latency'][number] {
  return {
    rate,
    achieved: median(phases.map((p) => p.achieved)),
    p50: median(phases.map((p) => p.p50)),
    p99: median(phases.map((p) => p.p99)),
    p99s: phases.map((p) => p.p99),
  }
}

/** Enqueue-to-arrival percentiles at one paced rate: independent callers, as API requests are. */
async function latency(system: System, rx: ReceiverProcess, rate: number, seconds: number): Promise<Paced> {
  await rx.ask({ type: 'reset' })
  const total = Math.round(rate * seconds)
  const started = nowMs()
  const inFlight = new Set<Promise<void>>()
  for (let seq = 0; seq < total; seq += 1) {
    const wait = started + (seq * 1000) / rate - nowMs()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    // A paced enqueue does not wait for the previous one: arrivals are independent callers.
    const p = system.enqueue(seq, nowMs()).finally(() => inFlight.delete(p))
    inFlight.add(p)
  }
  await Promise.all(inFlight)
  const achieved = total / ((nowMs() - started) / 1000)
  const { latencies } = await rx.waitFor(total)
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN
  return { rate, achieved, p50: at(0.5), p99: at(0.99) }
}

/** What one run measures, from the command line. */
interface Plan {
  events: number
  producers: number
  concurrency: number
  rounds: number
  seconds: number
  rates: number[]
  databaseUrl: string | undefined
  names: string[]
}

function parsePlan(): Plan {
  const databaseUrl = process.env.TESSERA_DATABASE_URL || process.env.TESSERA_TEST_DATABASE_URL
  const names = [
    ...list([args.dialect || (databaseUrl ? 'sqlite,postgres' : 'sqlite')]),
    ...list(args.peer),
  ].filter((name) => name !== 'none')
  for (const name of names) if (!STARTERS[name]) throw new Error(`unknown system "${name}"`)
  // A graphile-worker runner that sees another one migrate its schema (its notice is database-wide)
  // shuts down: one of the two per run.
  const graphiles = names.filter((name) => name.startsWith('graphile-worker'))
  if (graphiles.length > 1) throw new Error(`--peer ${graphiles.join(' and ')} cannot run in one run`)
  return {
    events: wholeNumber('events', args.events),
    producers: wholeNumber('producers', args.producers || args.emitters),
    concurrency: wholeNumber(
      'concurrency',
      args.concurrency || process.env.TESSERA_WEBHOOK_MAX_IN_FLIGHT || '8',
    ),
    rounds: wholeNumber('rounds', args.rounds),
    seconds: Number(args.seconds),
    rates: list([args.rate || args.rates]).map((r) => wholeNumber('rates', r)),
    databaseUrl,
    names,
  }
}

/** Every round's figures, per system: events/s, the machine's CPU, the latency phases. */
class Rounds {
  readonly rates: Record<string, number[]> = { raw: [] }
  /** Per system and round: the machine's busy CPU µs per event, and its utilization. */
  readonly cpu: Record<string, Array<{ perEvent: number; utilization: number }>> = {}
  /** Per system and round: this process's CPU µs per event. */
  readonly ownCpu: Record<string, number[]> = {}
  /** Per system and round: this process's event-loop utilization. */
  readonly eventLoop: Record<string, number[]> = {}
  /** Per system, paced rate and round: the latency phase's percentiles. */
  readonly paced: Record<string, Paced[][]> = {}
  readonly #plan: Plan
  readonly #rx: ReceiverProcess

  constructor(plan: Plan, rx: ReceiverProcess, systems: System[]) {
    this.#plan = plan
    this.#rx = rx
    for (const system of systems) {
      this.rates[system.name] = []
      this.cpu[system.name] = []
      this.ownCpu[system.name] = []
      this.eventLoop[system.name] = []
      this.paced[system.name] = plan.rates.map(() => [])
    }
  }

  /** One round: the raw loop, every system's throughput, then every system's latency phases. */
  async run(round: number, order: System[]): Promise<void> {
    const { events, producers, concurrency, rates, seconds } = this.#plan
    this.rates.raw?.push(await rawLoop(this.#rx.url, events, concurrency))
    for (const system of order) {
      await settle()
      const phase = () => throughput(system, this.#rx, events, producers)
      const dir = args['cpu-prof-dir']
      const slug = `${system.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}${producers}p`
      const done = round === 1 && dir !== undefined ? await profiled(dir, slug, phase) : await phase()
      this.rates[system.name]?.push(done.rate)
      if (done.cpu) this.cpu[system.name]?.push({ perEvent: (done.cpu.busy / events) * 1e6, ...done.cpu })
      this.ownCpu[system.name]?.push(done.ownUs / events)
      this.eventLoop[system.name]?.push(done.eventLoop)
    }
    const last = Object.entries(this.rates).map(([n, r]) => `${n} ${r.at(-1)?.toFixed(0)}`)
    console.log(`  round ${round}: ${last.join(', ')}`)
    // The latency phases in every round as well: one stall of the machine (a slow disk flush, a
    // noisy neighbour) then moves one round's percentiles, not the reported median.
    for (const system of order) {
      for (const [i, rate] of rates.entries()) {
        await settle()
        const phase = await latency(system, this.#rx, rate, seconds)
        this.paced[system.name]?.[i]?.push(phase)
        console.log(
          `    ${system.name} at ${rate}/s: p50 ${phase.p50.toFixed(2)} / p99 ${phase.p99.toFixed(2)} ms`,
        )
      }
    }
  }

  /** The medians over the rounds. */
  figures(system: System): Figures {
    const used = this.cpu[system.name] ?? []
    const own = this.ownCpu[system.name] ?? []
    const loop = this.eventLoop[system.name] ?? []
    return {
      name: system.name,
      rate: median(this.rates[system.name] ?? []),
      latency: this.#plan.rates.map((rate, i) => medianLatency(rate, this.paced[system.name]?.[i] ?? [])),
      cpuPerEventUs: used.length > 0 ? median(used.map((c) => c.perEvent)) : null,
      utilization: used.length > 0 ? median(used.map((c) => c.utilization)) : null,
      ownCpuPerEventUs: own.length > 0 ? median(own) : null,
      eventLoop: loop.length > 0 ? median(loop) : null,
    }
  }
}

async function main(): Promise<void> {
  const plan = parsePlan()
  const { events, producers, concurrency, rounds, seconds, rates } = plan
  const rx = await ReceiverProcess.start()
  const systems: System[] = []
  try {
    const options: SystemOptions = { receiverUrl: rx.url, concurrency, databaseUrl: plan.databaseUrl }
    for (const name of plan.names)
      systems.push(await (STARTERS[name] as (o: SystemOptions) => Promise<System>)(options))
    console.log(
      `webhook delivery benchmark: ${events} events × ${rounds} rounds, concurrency ${concurrency}, ` +
        `${producers} producer${producers === 1 ? '' : 's'}, latency at ${rates.join(', ')}/s for ${seconds} s`,
    )
    // Warm-up: JIT, connections, statement caches.
    await rawLoop(rx.url, Math.min(1000, events), concurrency)
    for (const system of systems) await throughput(system, rx, Math.min(1000, events), producers)
    const measured = new Rounds(plan, rx, systems)
    for (let round = 1; round <= rounds; round++) {
      // Alternate the order too, so no system always runs right after the same other one.
      await measured.run(round, round % 2 === 1 ? systems : [...systems].reverse())
    }
    const figures = systems.map((system) => measured.figures(system))
    report(figures, median(measured.rates.raw ?? []))
    record('delivery', deliveryRows(figures, median(measured.rates.raw ?? []), producers))
    if (args.check && !checkTargets(figures)) process.exitCode = 1
  } finally {
    for (const system of systems)
      await system.close().catch((err) => console.error(`closing ${system.name}:`, err))
    rx.stop()
  }
}

await main()
