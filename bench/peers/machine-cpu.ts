// The whole machine's CPU time (every process: the system under test, its database or Redis, the
// receiver), read from /proc/stat, so that a bench can say what one event costs in CPU and how busy
// the machine was while it ran: a system whose phase kept the cores busy is bound by CPU per event,
// not by waiting. Linux only; elsewhere every reading is null.
import { readFileSync } from 'node:fs'

export interface CpuReading {
  /** CPU seconds spent busy (user, nice, system, irq, softirq), all cores together. */
  busy: number
  /** CPU seconds elapsed, idle and iowait included, all cores together. */
  total: number
}

const TICKS_PER_SECOND = 100 // USER_HZ, 100 on every Linux build in use

export function readMachineCpu(): CpuReading | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? ''
    const [label, ...fields] = line.trim().split(/\s+/)
    if (label !== 'cpu') return null
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0] = fields.map(Number)
    const busy = user + nice + system + irq + softirq
    return { busy: busy / TICKS_PER_SECOND, total: (busy + idle + iowait) / TICKS_PER_SECOND }
  } catch {
    return null
  }
}

export interface CpuUse {
  /** Busy CPU seconds, all cores together. */
  busy: number
  /** Share of the machine's cores kept busy (0–1). */
  utilization: number
}

/** What the machine spent between two readings; null without /proc/stat. */
export function cpuBetween(from: CpuReading | null, to: CpuReading | null): CpuUse | null {
  if (!from || !to || to.total <= from.total) return null
  const busy = to.busy - from.busy
  return { busy, utilization: busy / (to.total - from.total) }
}

/**
 * Waits until the machine is quiet (under `busyBelow` of its cores busy over `windowMs`), at most
 * `maxMs`: a phase then does not start while the previous system still works in the background
 * (pg-boss archiving, autovacuum after a churned table). Answers how long it waited.
 */
export async function settle(busyBelow = 0.3, windowMs = 500, maxMs = 15_000): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < maxMs) {
    const before = readMachineCpu()
    await new Promise((resolve) => setTimeout(resolve, windowMs))
    const use = cpuBetween(before, readMachineCpu())
    if (use === null || use.utilization < busyBelow) break
  }
  return performance.now() - started
}
