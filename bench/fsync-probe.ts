// How steady the disk under a database is (`npm run bench:fsync -- --dir DIR`): 8 KiB written and
// fdatasync'ed in a loop, as a database commit flushes its log, for `--seconds`, while a worker
// thread runs a 1 ms timer. Prints both latency distributions: a flush that stalls while the timer
// keeps time is the disk (or the host's storage), not the CPU. A durable commit can never be faster
// than this flush, so its tail bounds the tail of every durable queue on the machine.
//
//   npm run bench:fsync -- [--dir /var/lib/postgresql] [--seconds 20]
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { Worker } from 'node:worker_threads'
import { type ResultRow, record } from './results.ts'

const { values: args } = parseArgs({
  options: { dir: { type: 'string', default: '.' }, seconds: { type: 'string', default: '20' } },
})
const seconds = Number(args.seconds)
if (!(seconds > 0)) throw new Error('--seconds must be a positive number')

// The timer's lateness, measured in a thread of its own so the flushes never delay it.
const TIMER = `
  const { parentPort } = require('node:worker_threads')
  const late = []
  let last = performance.now()
  const timer = setInterval(() => { const now = performance.now(); late.push(now - last - 1); last = now }, 1)
  parentPort.once('message', () => { clearInterval(timer); parentPort.postMessage(late) })`

const file = path.join(args.dir, `tessera-fsync-probe-${process.pid}.bin`)
const BLOCK = Buffer.alloc(8192, 1)
// The file wraps at 16 MiB, a PostgreSQL WAL segment.
const WRAP = 16 * 1024 * 1024

const timer = new Worker(TIMER, { eval: true })
const fd = fs.openSync(file, 'w', 0o600)
const flushes: number[] = []
try {
  const end = performance.now() + seconds * 1000
  for (let offset = 0; performance.now() < end; offset = (offset + BLOCK.length) % WRAP) {
    const started = performance.now()
    fs.writeSync(fd, BLOCK, 0, BLOCK.length, offset)
    fs.fdatasyncSync(fd)
    flushes.push(performance.now() - started)
    // About a commit per millisecond, not a flush loop that saturates the device.
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
} finally {
  fs.closeSync(fd)
  fs.rmSync(file, { force: true })
}
timer.postMessage('stop')
const late = await new Promise<number[]>((resolve) => timer.once('message', resolve))
await timer.terminate()

function percentile(ms: number[], p: number): number {
  const sorted = [...ms].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

function summary(name: string, ms: number[]): string {
  const at = (p: number) => percentile(ms, p).toFixed(2)
  const stalls = ms.filter((x) => x > 30).length
  return `${name} ×${ms.length}: p50 ${at(0.5)} / p99 ${at(0.99)} / p99.9 ${at(0.999)} / max ${at(1)} ms, ${stalls} over 30 ms`
}
console.log(`${file}:`)
console.log(summary('fdatasync of 8 KiB', flushes))
console.log(summary('1 ms timer, lateness', late))

const figures = (prefix: string, ms: number[]): ResultRow[] =>
  (
    [
      ['p50', 0.5],
      ['p99', 0.99],
      ['max', 1],
    ] as const
  ).map(([name, p]) => ({
    metric: `${prefix}_${name}`,
    value: Number(percentile(ms, p).toFixed(2)),
    unit: 'ms',
    samples: ms.length,
    seconds,
  }))
record('fsync', [...figures('flush', flushes), ...figures('timer_lateness', late)])
