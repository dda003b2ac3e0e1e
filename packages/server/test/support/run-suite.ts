// The server suite's runner (`npm test -w @tessera/server`; docs/ci.md, "The server suite"). Every
// test/**/*.test.ts runs in its own process, as `node --test` runs it, in two phases:
//   concurrent: most files, TESSERA_TEST_CONCURRENCY at a time (default 2), the slowest first;
//   serial:     the files that assert a latency or event-loop budget, one at a time, alone.
// Concurrent files cannot collide: each test opens its own SQLite temp dir and its own PostgreSQL
// schema (harness.ts uniqueName), servers listen on port 0, and every NOTIFY payload and
// application_name names its schema. `--phase=concurrent|serial` runs one phase (CI runs the
// browser suite beside the concurrent phase only). Any other arguments are files to run instead.
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'

/**
 * Files whose tests assert a latency or an event-loop stall against a budget (p99 < 50 ms, a median
 * under 25 ms, a stall under 100 ms…): a file running beside them could fail them on CPU alone, so
 * they run after the rest, one at a time. Named by their path under test/ without `.test.ts` (a file moved elsewhere must be renamed here).
 */
const SERIAL = new Set([
  'conversion/api', // p99 of a GET < 50 ms while a conversion runs
  'conversion/bounds', // a refused input answers within 10 s
  'conversion/queue', // a conversion process stops within 1.5 s
  'conversion/cad', // a fresh OCCT reader imports a small IGES within 1.5 s
  'scene/attribute-bounds', // event loop stall < 100 ms
  'file-items/item-bounds', // event loop held < 250 ms of CPU
  'webhooks/secrets', // median < 25 ms, worst < 80 ms
  'cli/serve-processes', // median latency across processes < 800 ms
  'delivery/fairness', // p99 under load against a measured baseline
  'platform/db-sqlite', // the event loop is never held for 1 s
  'platform/group-commit', // the same, and COMMITs counted within a group's 4 ms
  'live/auth', // a revoked share, a disabled account, a superseded session close within 1 s
  'live/guests', // a revoked link closes its guests within 1 s
  'live/live-meetings', // public meetings turned off or a deleted file close within 1 s, across processes
  'live/bounds', // coalescing and idle timings
  // Creates and drops schemas for 3 s: pg_dump (platform/backup) reads other schemas' catalog rows.
  'platform/db-introspection',
])

/**
 * The longest files (measured, docs/ci.md), started first so that none of them begins near the end
 * and leaves a slot idle while it finishes. Order only: files not named here follow, by path.
 */
const SLOWEST_FIRST = [
  'cli/cli',
  'platform/backup',
  'conversion/formats',
  'cli/crash-restart',
  'delivery/crash',
  'conversion/progress',
  'platform/idempotency',
  'cli/workers',
  'files/files',
  'conversion/workers',
  'delivery/delivery',
  'platform/idempotency-processes',
  'app/scale-out',
  'admin/admin',
]

const TEST_DIR = path.resolve(import.meta.dirname, '..')
/** `test/conversion/api.test.ts` → `conversion/api` (posix separators). */
const name = (file: string) =>
  path
    .relative(TEST_DIR, file)
    .split(path.sep)
    .join('/')
    .replace(/\.test\.ts$/, '')

function allTestFiles(): string[] {
  return readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && !file.split(path.sep).includes('node_modules'))
    .map((file) => path.join(TEST_DIR, file))
    .sort()
}

function slowestFirst(files: string[]): string[] {
  const rank = (file: string) => {
    const at = SLOWEST_FIRST.indexOf(name(file))
    return at === -1 ? SLOWEST_FIRST.length : at
  }
  return [...files].sort((a, b) => rank(a) - rank(b))
}

/** Milliseconds per file: the sum of its top-level tests' durations (printed at the end). */
const fileMs = new Map<string, number>()

interface Finished {
  nesting: number
  file?: string
  details: { duration_ms: number }
}

function count({ nesting, file, details }: Finished): void {
  if (nesting === 0 && file) fileMs.set(file, (fileMs.get(file) ?? 0) + details.duration_ms)
}

/** Runs `files`, `concurrency` at a time, with the spec reporter; answers whether all passed. */
async function runFiles(files: string[], concurrency: number): Promise<boolean> {
  if (files.length === 0) return true
  let passed = true
  const stream = run({ files, concurrency, timeout: 240_000 })
  stream.on('test:pass', count)
  stream.on('test:fail', (event: Finished) => {
    passed = false
    count(event)
  })
  const report = stream.compose(new spec())
  report.pipe(process.stdout, { end: false })
  await finished(report)
  return passed
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const phase = args.find((a) => a.startsWith('--phase='))?.slice('--phase='.length) ?? 'all'
  if (!['all', 'concurrent', 'serial'].includes(phase))
    throw new Error(`--phase=${phase}: all, concurrent or serial`)
  const named = args.filter((a) => !a.startsWith('--')).map((file) => path.resolve(file))
  const files = named.length > 0 ? named : allTestFiles()
  const concurrency = Number(process.env.TESSERA_TEST_CONCURRENCY ?? 2)
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error('TESSERA_TEST_CONCURRENCY: a whole number ≥ 1')
  const concurrent = slowestFirst(files.filter((file) => !SERIAL.has(name(file))))
  const serial = files.filter((file) => SERIAL.has(name(file)))
  const started = Date.now()
  let ok = true
  if (phase === 'all' || phase === 'concurrent') {
    console.log(`# ${concurrent.length} files, ${concurrency} at a time`)
    ok = (await runFiles(concurrent, concurrency)) && ok
  }
  if (phase === 'all' || phase === 'serial') {
    console.log(`# ${serial.length} files with a time budget, one at a time`)
    ok = (await runFiles(serial, 1)) && ok
  }
  // Each file's tests' time (without its process start), slowest first: what SLOWEST_FIRST follows.
  const times = [...fileMs].sort((a, b) => b[1] - a[1])
  console.log(
    `# seconds per file: ${times.map(([f, ms]) => `${name(f)} ${Math.round(ms / 1000)}`).join(', ')}`,
  )
  console.log(
    `# server suite (${phase}): ${ok ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`,
  )
  if (!ok) process.exitCode = 1
}

await main()
