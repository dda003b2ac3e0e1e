// bench:delivery's figures as history rows (bench/results.ts), with the ratios its targets judge.
import type { ResultRow } from '../results.ts'
import type { Figures } from './targets.ts'

/** One row per figure and system, plus the two target ratios where their systems ran. */
export function deliveryRows(figures: Figures[], raw: number, producers: number): ResultRow[] {
  const rows: ResultRow[] = [
    { metric: 'raw_post_rate', value: Math.round(raw), unit: 'req/s', system: 'raw undici POST loop' },
  ]
  for (const f of figures) {
    const at = { ...systemOf(f.name), producers }
    rows.push({ metric: 'events_per_s', value: Math.round(f.rate), unit: 'events/s', ...at })
    if (f.cpuPerEventUs !== null)
      rows.push({
        metric: 'machine_cpu_per_event',
        value: Math.round(f.cpuPerEventUs),
        unit: 'µs',
        ...at,
        ...(f.utilization === null ? {} : { busy: Number(f.utilization.toFixed(2)) }),
      })
    if (f.ownCpuPerEventUs !== null)
      rows.push({
        metric: 'bench_process_cpu_per_event',
        value: Math.round(f.ownCpuPerEventUs),
        unit: 'µs',
        ...at,
        ...(f.eventLoop === null ? {} : { eventLoopBusy: Number(f.eventLoop.toFixed(2)) }),
      })
    for (const l of f.latency) {
      const paced = { ...at, rate: l.rate, achieved: Math.round(l.achieved) }
      rows.push({ metric: 'latency_p50', value: Number(l.p50.toFixed(2)), unit: 'ms', ...paced })
      rows.push({
        metric: 'latency_p99',
        value: Number(l.p99.toFixed(2)),
        unit: 'ms',
        ...paced,
        p99ByRound: l.p99s.map((p) => Number(p.toFixed(1))),
      })
    }
  }
  return [...rows, ...targetRatios(figures, producers)]
}

// The ratios as checkTargets judges them: the one-process Tessera systems against their peers.
function targetRatios(figures: Figures[], producers: number): ResultRow[] {
  const named = (name: string) => figures.find((f) => f.name === name)
  const sqlite = named('Tessera (SQLite)')
  const postgres = named('Tessera (PostgreSQL)')
  const bull = figures.find((f) => f.name.startsWith('BullMQ'))
  const peers = [named('graphile-worker'), figures.find((f) => f.name.startsWith('pg-boss'))].filter(
    (f) => f !== undefined,
  )
  const rows: ResultRow[] = []
  const ratio = (a: number, b: number) => Number((a / b).toFixed(2))
  if (sqlite && bull) {
    const value = ratio(sqlite.rate, bull.rate)
    rows.push({
      metric: 'ratio_vs_bullmq',
      value,
      unit: 'ratio',
      ratio: value,
      target: 1.5,
      ...systemOf(sqlite.name),
      producers,
      baseline: 'BullMQ events/s in the same run',
    })
  }
  if (postgres && peers.length > 0) {
    const value = ratio(postgres.rate, Math.max(...peers.map((f) => f.rate)))
    rows.push({
      metric: 'ratio_vs_best_pg_peer',
      value,
      unit: 'ratio',
      ratio: value,
      target: 1.5,
      ...systemOf(postgres.name),
      producers,
      baseline: 'best of graphile-worker and pg-boss events/s in the same run',
    })
  }
  return rows
}

/** The history's keys for a system (as the rows taken from the old page have them). */
function systemOf(name: string): { system: string; dialect: string } {
  const dialect = /SQLite/.test(name) ? 'sqlite' : name.startsWith('BullMQ') ? 'redis' : 'postgres'
  if (name.startsWith('Tessera'))
    return { system: name.includes('workers process') ? 'tessera-split' : 'tessera', dialect }
  if (name.startsWith('BullMQ')) return { system: 'bullmq', dialect }
  if (name.startsWith('pg-boss')) return { system: 'pg-boss', dialect }
  if (name.includes('add_job in a transaction')) return { system: 'graphile-worker-tx', dialect }
  return {
    system: name.includes('runner') || name.includes('split') ? 'graphile-worker-split' : 'graphile-worker',
    dialect,
  }
}
