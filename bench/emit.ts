// Where one producer's time goes (`npm run bench:emit`): a producer awaiting each emit, as in
// bench:delivery's one-producer throughput, with the event's delivery to the local receiver and
// without it (the webhook paused, so each emit still writes its delivery row but nothing is sent).
// "alone" is the most events/s one producer can emit; "delivered" the end-to-end rate of the same
// work with deliveries, on the same process (API and delivery worker together, as `tessera serve`).
// On SQLite it also replays the emit's writes with bare better-sqlite3 (bench/peers/
// sqlite-emit-replay.ts): the database's own part of an emit, and the WAL pages its commit writes.
//
//   npm run bench:emit -- [--dialect sqlite,postgres] [--events 5000] [--rounds 3]
//
// PostgreSQL needs TESSERA_DATABASE_URL (or TESSERA_TEST_DATABASE_URL). See docs/benchmarks.md.
import { parseArgs } from 'node:util'
import { nowMs, ReceiverProcess } from './peers/receiver.ts'
import { replayEmits } from './peers/sqlite-emit-replay.ts'
import { median } from './peers/targets.ts'
import { startTessera } from './peers/tessera.ts'
import { type ResultRow, record } from './results.ts'

const { values: args } = parseArgs({
  options: {
    dialect: { type: 'string', default: '' },
    events: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
  },
})
const databaseUrl = process.env.TESSERA_DATABASE_URL ?? process.env.TESSERA_TEST_DATABASE_URL
const dialects = (args.dialect || (databaseUrl ? 'sqlite,postgres' : 'sqlite')).split(',')
for (const name of dialects)
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown dialect "${name}"`)

function wholeNumber(name: string, text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1`)
  return n
}
const events = wholeNumber('events', args.events)
const rounds = wholeNumber('rounds', args.rounds)

interface Sample {
  /** Emits per second while the producer ran. */
  emitted: number
  /** Events per second from the first emit to the last arrival (the emit rate when paused). */
  delivered: number
}

async function measure(
  dialect: 'sqlite' | 'postgres',
  rx: ReceiverProcess,
  paused: boolean,
): Promise<Sample> {
  const system = await startTessera(dialect, { receiverUrl: rx.url, concurrency: 8, databaseUrl })
  try {
    const warmUp = Math.min(500, events)
    for (let i = 0; i < warmUp; i++) await system.enqueue(i, nowMs())
    await rx.waitFor(warmUp)
    if (paused) await system.pauseWebhook?.()
    await rx.ask({ type: 'reset' })
    const start = nowMs()
    for (let i = 0; i < events; i++) await system.enqueue(i, nowMs())
    const emitted = nowMs() - start
    if (!paused) await rx.waitFor(events)
    const total = nowMs() - start
    return { emitted: (events / emitted) * 1000, delivered: (events / total) * 1000 }
  } finally {
    await system.close()
  }
}

const perSecond = (n: number) => Math.round(n).toLocaleString('en-US')
const micros = (rate: number) => `${Math.round(1e6 / rate)} µs`

async function main(): Promise<void> {
  const rx = await ReceiverProcess.start()
  const rows: ResultRow[] = []
  try {
    console.log(`emit benchmark: one producer awaiting each emit, ${events} events × ${rounds} rounds`)
    for (const dialect of dialects as Array<'sqlite' | 'postgres'>) {
      const alone: number[] = []
      const emitted: number[] = []
      const delivered: number[] = []
      for (let round = 1; round <= rounds; round++) {
        // Alternate which runs first.
        const order = round % 2 === 1 ? [true, false] : [false, true]
        for (const paused of order) {
          const sample = await measure(dialect, rx, paused)
          if (paused) alone.push(sample.emitted)
          else {
            emitted.push(sample.emitted)
            delivered.push(sample.delivered)
          }
        }
        console.log(
          `  ${dialect} round ${round}: alone ${perSecond(alone.at(-1) ?? 0)}/s, with deliveries ` +
            `${perSecond(emitted.at(-1) ?? 0)}/s emitted, ${perSecond(delivered.at(-1) ?? 0)}/s delivered`,
        )
      }
      const [a, e, d] = [median(alone), median(emitted), median(delivered)]
      console.log(
        `Tessera (${dialect}): emits alone ${perSecond(a)}/s (${micros(a)} each); with deliveries ` +
          `${perSecond(e)}/s emitted, ${perSecond(d)}/s delivered end to end (${micros(d)} per event)`,
      )
      rows.push(
        {
          metric: 'emits_per_s',
          value: Math.round(a),
          unit: 'events/s',
          dialect,
          rounds: alone.map(Math.round),
        },
        { metric: 'emitted_with_deliveries_per_s', value: Math.round(e), unit: 'events/s', dialect },
        { metric: 'delivered_end_to_end_per_s', value: Math.round(d), unit: 'events/s', dialect },
      )
    }
    if (dialects.includes('sqlite')) {
      const cost = await replayEmits(events)
      const f = (n: number) => n.toFixed(1)
      console.log(
        `SQLite's own part of an emit (bare better-sqlite3 replay): BEGIN ${f(cost.beginUs)} µs, ` +
          `statements ${f(cost.statementsUs)} µs, COMMIT ${f(cost.commitUs)} µs; ` +
          `${cost.walFrames.toFixed(2)} WAL frames per commit`,
      )
      const replay = { dialect: 'sqlite', case: 'bare better-sqlite3 replay of the emit' }
      rows.push(
        { metric: 'sqlite_begin', value: Number(f(cost.beginUs)), unit: 'µs', ...replay },
        { metric: 'sqlite_statements', value: Number(f(cost.statementsUs)), unit: 'µs', ...replay },
        { metric: 'sqlite_commit', value: Number(f(cost.commitUs)), unit: 'µs', ...replay },
        {
          metric: 'wal_pages_per_commit',
          value: Number(cost.walFrames.toFixed(2)),
          unit: 'pages',
          ...replay,
        },
      )
    }
    record('emit', rows)
  } finally {
    rx.stop()
  }
}

await main()
