// The benchmarks' history (docs/benchmarks.md, "Reading this page"): every recorded run appends one
// JSON object per figure to bench/results/<bench>.jsonl, the data behind the page's tables and
// charts (`npm run bench:chart`). Recording is opt-in (TESSERA_BENCH_RECORD=1) so that a bench run
// for a quick look, a smoke test or CI never dirties the tree; a run worth keeping is recorded
// and committed with its figures.
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync } from 'node:fs'
import { cpus, hostname, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** One figure of a run: what was measured, and whatever tells it apart (dialect, case, system…). */
export interface ResultRow {
  metric: string
  value: number
  unit: string
  /** The figure over its baseline's, where the bench compares with one. */
  ratio?: number
  baseline?: string
  dialect?: string
  case?: string
  system?: string
  note?: string
  [key: string]: string | number | boolean | number[] | undefined
}

export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'results')

/** Whether this run records its figures: TESSERA_BENCH_RECORD=1 (or true). */
function recording(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.TESSERA_BENCH_RECORD
  return flag === '1' || flag === 'true'
}

/** The commit the bench ran from, `-dirty` when the tree had changes; null outside a git tree. */
function currentCommit(): string | null {
  try {
    const run = (args: string[]) =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    const head = run(['rev-parse', '--short', 'HEAD']).trim()
    const dirty = run(['status', '--porcelain', '--untracked-files=no']).trim() !== ''
    return dirty ? `${head}-dirty` : head
  } catch {
    return null
  }
}

/** What every row of one run shares: when, where, on what, under which load, from which commit. */
function runContext(startLoad: number[], now = new Date()): Record<string, string | null> {
  const cores = cpus()
  const fmt = (loads: number[]) => loads.map((n) => n.toFixed(2)).join(' ')
  return {
    date: now.toISOString(),
    host: `${hostname()}: ${cores.length} cores, ${cores[0]?.model.trim() ?? 'unknown CPU'}`,
    node: process.versions.node,
    load: `1/5/15 min at start ${fmt(startLoad)}, at end ${fmt(loadavg())}`,
    commit: currentCommit(),
    command: `node ${process.argv
      .slice(1)
      .map((a) => a.replace(process.cwd(), '.'))
      .join(' ')}`,
  }
}

const startLoad = loadavg()

/**
 * Appends a run's figures to bench/results/<bench>.jsonl when recording is on (see above); prints
 * where they went. Each row gets the run's context (date, host, Node, load, commit, command).
 */
export function record(bench: string, rows: ResultRow[], dir = RESULTS_DIR): string | null {
  if (!recording() || rows.length === 0) return null
  const context = runContext(startLoad)
  // The row's own fields (a load it measured itself, say) win over the run's context.
  const lines = rows.map(({ metric, value, unit, ...rest }) =>
    JSON.stringify({ bench, metric, value, unit, ...context, ...rest }),
  )
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${bench}.jsonl`)
  appendFileSync(file, `${lines.join('\n')}\n`)
  console.log(`recorded ${rows.length} figures in ${file}`)
  return file
}
