// Recovering from crashes (docs/conversion.md, "Crashes"): a conversion worker registers in the
// process registry with a heartbeat, removes the temp folders of conversions whose process died,
// and takes back at once the jobs leased by workers known dead, instead of waiting for the lease.
import { readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AppContext } from '../../platform/context.ts'
import { leaseMs } from '../../platform/jobs.ts'
import { abandonedTemp, keepAlive, releaseDeadWorkers, TEMP_OWNER } from '../../platform/workers.ts'

const PREFIX = 'tessera-convert-'

/** The temp folder prefix of this process's conversions: `tessera-convert-<host>-<pid>-`. */
export const CONVERSION_TEMP_PREFIX = join(tmpdir(), `${PREFIX}${TEMP_OWNER}`)

/**
 * Removes conversion temp folders whose process is gone (named by CONVERSION_TEMP_PREFIX) and any
 * older than the longest lease (a live conversion ends by then). Answers how many.
 */
async function sweepConversionTemp(timeoutMs: number, now = Date.now()): Promise<number> {
  const names = (await readdir(tmpdir()).catch(() => [] as string[])).filter((n) => n.startsWith(PREFIX))
  let removed = 0
  for (const name of names) {
    const path = join(tmpdir(), name)
    const info = await stat(path).catch(() => null)
    if (!info?.isDirectory()) continue
    if (!abandonedTemp(name.slice(PREFIX.length), now - info.mtimeMs, leaseMs(timeoutMs))) continue
    await rm(path, { recursive: true, force: true }).catch(() => {})
    removed += 1
  }
  return removed
}

type Ctx = Pick<AppContext, 'db' | 'blobs' | 'config' | 'log'>

/** What a conversion worker does about crashes: at start, and before each look at the queue. */
export class CrashRecovery {
  #stopBeating: (() => Promise<void>) | null = null

  private readonly ctx: Ctx
  private readonly workerId: string

  constructor(ctx: Ctx, workerId: string) {
    this.ctx = ctx
    this.workerId = workerId
  }

  /** Registers the worker, sweeps leftovers of dead processes, takes back dead workers' jobs. */
  async start(): Promise<void> {
    const log = this.ctx.log
    this.#stopBeating = keepAlive(this.ctx.db.kysely, this.workerId, (err) =>
      log.warn({ err }, 'worker heartbeat failed'),
    )
    const folders = await sweepConversionTemp(this.ctx.config.conversionTimeoutMs)
    const blobs = (await this.ctx.blobs.sweepTemp?.()) ?? 0
    if (folders + blobs > 0) log.info({ folders, blobs }, 'removed temp files left by crashed processes')
    await this.takeOver()
  }

  /** Releases the leases of dead workers so the next claim takes their jobs. */
  async takeOver(): Promise<void> {
    const released = await releaseDeadWorkers(this.ctx.db.kysely, this.workerId)
    if (released > 0) this.ctx.log.info({ released }, 'took back the jobs of a dead worker')
  }

  async stop(): Promise<void> {
    await this.#stopBeating?.()
    this.#stopBeating = null
  }
}
