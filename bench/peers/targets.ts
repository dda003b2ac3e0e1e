// The delivery bench's report and targets (docs/benchmarks.md): SQLite ≥ 1.5× BullMQ; PostgreSQL ≥
// 1.5× the best of graphile-worker and pg-boss, with p50/p99 at 400 events/s no worse than
// graphile-worker's; p99 < 50 ms at 1,000 events/s on both dialects.

export interface Figures {
  name: string
  /** Median events/s over the rounds. */
  rate: number
  /** Per paced rate: medians over the rounds of the achieved rate, p50 and p99; every round's p99. */
  latency: Array<{ rate: number; achieved: number; p50: number; p99: number; p99s: number[] }>
  /**
   * Median over the rounds of the whole machine's busy CPU per event during the throughput phase
   * (every process: the system, its store, the receiver), in µs; null where unmeasured.
   */
  cpuPerEventUs: number | null
  /** Median share of the machine's cores kept busy during those phases (0–1). */
  utilization: number | null
  /**
   * Median over the rounds of the bench process's own CPU per event (user and system), in µs: the
   * producers and the system's Node side (Tessera's whole server with SQLite's own work; a peer's
   * queue, worker and client), without its store, the receiver or a workers process.
   */
  ownCpuPerEventUs: number | null
  /**
   * Median over the rounds of the bench process's event-loop utilization during the throughput
   * phase (0–1): near 1, the one thread that runs Tessera's whole server (or a peer's Node side) is
   * the limit, not the cores.
   */
  eventLoop: number | null
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN
}

export function report(figures: Figures[], raw: number): void {
  console.log(`  raw undici POST loop (ceiling): ${raw.toFixed(0)} req/s`)
  for (const f of figures) {
    const lat = f.latency
      .map(
        (l) =>
          `@${l.rate}/s (got ${l.achieved.toFixed(0)}) p50 ${l.p50.toFixed(2)} / p99 ${l.p99.toFixed(2)} ms` +
          ` (p99 by round ${l.p99s.map((p) => p.toFixed(1)).join(', ')})`,
      )
      .join(', ')
    const cpu =
      f.cpuPerEventUs === null || f.utilization === null
        ? ''
        : ` [machine CPU ${f.cpuPerEventUs.toFixed(0)} µs/event, ${(f.utilization * 100).toFixed(0)} % busy` +
          `${f.ownCpuPerEventUs === null ? '' : `; bench process ${f.ownCpuPerEventUs.toFixed(0)} µs/event`}` +
          `${f.eventLoop === null ? '' : `, its event loop ${(f.eventLoop * 100).toFixed(0)} % busy`}]`
    console.log(
      `  ${f.name.padEnd(30)} ${f.rate.toFixed(0).padStart(6)} events/s (${(f.rate / raw).toFixed(3)} of raw)${cpu}  ${lat}`,
    )
  }
}

const at = (f: Figures | undefined, rate: number) => f?.latency.find((l) => l.rate === rate)

/** Prints each target that applies to the systems measured; answers whether all were met. */
export function checkTargets(figures: Figures[]): boolean {
  const by = (prefix: string) => figures.find((f) => f.name.startsWith(prefix))
  // The targets compare with graphile-worker as its docs set it up (addJob), not the -tx variant.
  const exactly = (name: string) => figures.find((f) => f.name === name)
  // The one-process topology when it ran (`tessera serve`), else the workers-process one.
  const sqlite = exactly('Tessera (SQLite)') ?? by('Tessera (SQLite')
  const postgres = by('Tessera (PostgreSQL')
  const bull = by('BullMQ')
  const graphile = exactly('graphile-worker')
  const pgPeers = [graphile, by('pg-boss')].filter((f) => f !== undefined)
  const checks: Array<[string, boolean]> = []
  if (sqlite && bull) checks.push(['SQLite ≥ 1.5× BullMQ events/s', sqlite.rate >= 1.5 * bull.rate])
  if (postgres && pgPeers.length > 0) {
    const best = Math.max(...pgPeers.map((f) => f.rate))
    checks.push(['PostgreSQL ≥ 1.5× best PostgreSQL peer events/s', postgres.rate >= 1.5 * best])
  }
  const ours = at(postgres, 400)
  const theirs = at(graphile, 400)
  if (ours && theirs) {
    checks.push(['PostgreSQL p50 at 400/s ≤ graphile-worker', ours.p50 <= theirs.p50])
    checks.push(['PostgreSQL p99 at 400/s ≤ graphile-worker', ours.p99 <= theirs.p99])
  }
  for (const f of [sqlite, postgres]) {
    const l = at(f, 1000)
    if (f && l) checks.push([`${f.name} p99 < 50 ms at 1,000/s`, l.p99 < 50])
  }
  for (const [what, ok] of checks) console.log(`  ${ok ? 'met   ' : 'MISSED'} ${what}`)
  return checks.every(([, ok]) => ok)
}
