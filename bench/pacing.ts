// Work started at a steady rate, for the latency benchmarks: `total` calls of `start(i)` spread over
// millisecond slots at `rate` per second, at most `maxOpen` unfinished at once. A call that would
// exceed that bound is skipped and counted, never queued: a benchmark then reports the rate really
// achieved instead of hiding a backlog.
export interface PacedRun {
  started: number
  skipped: number
  ms: number
}

export async function pacedRun(
  rate: number,
  total: number,
  maxOpen: number,
  start: (i: number) => Promise<void>,
): Promise<PacedRun> {
  const run: PacedRun = { started: 0, skipped: 0, ms: 0 }
  const open = new Set<Promise<void>>()
  const began = performance.now()
  for (let i = 0; i < total; ) {
    const due = Math.floor(((performance.now() - began) * rate) / 1000) + 1
    for (; i < Math.min(due, total); i++) {
      if (open.size >= maxOpen) {
        run.skipped++
        continue
      }
      run.started++
      const call = start(i).finally(() => open.delete(call))
      open.add(call)
    }
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  await Promise.all(open)
  run.ms = performance.now() - began
  return run
}
