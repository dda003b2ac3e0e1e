// The conversion worker: claims due conversion jobs (at most TESSERA_CONVERSION_CONCURRENCY at once),
// runs each in its own child process and records the outcome. Woken directly by uploads in this
// process, by NOTIFY on PostgreSQL, and by a slow poll that also picks up the jobs of crashed
// workers once their lease has run out. At each wake it also stops the runs whose job was dropped
// (the file deleted, a newer revision uploaded: both wake the workers) or taken over.
import { randomUUID } from 'node:crypto'
import type { AppContext } from '../../platform/context.ts'
import type { Db } from '../../platform/db/index.ts'
import { heldJobs } from '../../platform/job-queue.ts'
import { Alarm, jobsChannel, listenForWork } from '../../platform/jobs.ts'
import { ProgressWriter } from './progress.ts'
import { ConversionRun } from './runner.ts'
import { type ClaimedJob, claimNext, recordOutcome, recordProgress } from './service.ts'
import { CrashRecovery } from './sweep.ts'

export interface ConversionWorkerOptions {
  ctx: Pick<AppContext, 'db' | 'blobs' | 'config' | 'log'>
  /** Longest sleep between looks at the queue when nothing wakes the worker. */
  pollMs?: number
}

export class ConversionWorker {
  readonly id = randomUUID()
  readonly db: Db
  readonly #ctx: ConversionWorkerOptions['ctx']
  readonly #log: AppContext['log']
  readonly #pollMs: number
  /** Runs by job ID; `over` once the child's outcome is in, or once #stopDropped killed it. */
  readonly #runs = new Map<string, { run: ConversionRun; done: Promise<void>; over: boolean }>()
  #running = false
  #loop: Promise<void> | null = null
  readonly #alarm = new Alarm()
  #stopListening: (() => Promise<void>) | null = null
  readonly #recovery: CrashRecovery

  constructor(options: ConversionWorkerOptions) {
    this.#ctx = options.ctx
    this.db = options.ctx.db
    this.#log = options.ctx.log.child({ component: 'conversion-worker' })
    this.#pollMs = options.pollMs ?? 2000
    this.#recovery = new CrashRecovery(options.ctx, this.id)
  }

  start(): void {
    if (this.#running) return
    this.#running = true
    this.#stopListening = listenForWork(this, jobsChannel, { log: this.#log })
    this.#loop = this.#recovery
      .start()
      .catch((err: unknown) => this.#log.error({ err }, 'crash recovery at start failed'))
      .then(() => this.#run())
  }

  /** Stops claiming; running conversions are killed and their jobs go back to the queue as they were. */
  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    await this.#stopListening?.()
    this.#stopListening = null
    this.wake()
    await this.#loop
    for (const { run } of this.#runs.values()) run.abort()
    await Promise.allSettled([...this.#runs.values()].map((entry) => entry.done))
    await this.#recovery.stop()
  }

  wake(): void {
    this.#alarm.ring()
  }

  async #run(): Promise<void> {
    while (this.#running) {
      this.#alarm.reset()
      try {
        await this.#recovery.takeOver()
        await this.#stopDropped()
        while (this.#running && this.#runs.size < this.#ctx.config.conversionConcurrency) {
          const job = await claimNext(this.#ctx, this.id)
          if (!job) break
          this.#launch(job)
        }
      } catch (err) {
        this.#log.error({ err }, 'claiming conversion jobs failed; retrying')
      }
      // stop() rings the alarm once it cleared #running.
      if (this.#running) await this.#alarm.sleep(this.#pollMs)
    }
  }

  /**
   * Kills the runs whose job is no longer ours: dropped with its file or by a newer revision, or
   * taken over after the lease ran out. Their outcome then finds the job gone and stores nothing.
   */
  async #stopDropped(): Promise<void> {
    if (this.#runs.size === 0) return
    const held = await heldJobs(this.db.kysely, this.id, [...this.#runs.keys()])
    for (const [jobId, entry] of this.#runs) {
      if (held.has(jobId) || entry.over) continue
      entry.over = true
      this.#log.info(
        { jobId },
        'conversion stopped: its job is gone (file deleted, newer revision) or taken over',
      )
      entry.run.abort()
    }
  }

  #launch(job: ClaimedJob): void {
    const progress = new ProgressWriter(
      (percent) => recordProgress(this.#ctx, job, percent),
      (err: unknown) => this.#log.warn({ err, jobId: job.jobId }, 'could not record conversion progress'),
    )
    const run = new ConversionRun({
      blobs: this.#ctx.blobs,
      blobKey: job.blobKey,
      fileName: job.fileName,
      timeoutMs: this.#ctx.config.conversionTimeoutMs,
      maxMemoryBytes: this.#ctx.config.conversionMaxMemoryBytes,
      onProgress: (percent) => progress.report(percent),
    })
    const started = Date.now()
    const done = this.#finish(job, run, progress, started).finally(() => {
      this.#runs.delete(job.jobId)
      this.wake() // a slot is free
    })
    const entry = { run, done, over: false }
    const over = (): void => {
      entry.over = true
    }
    // Never rejects: both handlers only set the flag (#finish handles the outcome itself).
    void run.outcome.then(over, over)
    this.#runs.set(job.jobId, entry)
  }

  async #finish(
    job: ClaimedJob,
    run: ConversionRun,
    progress: ProgressWriter,
    started: number,
  ): Promise<void> {
    try {
      const outcome = await run.outcome.catch((err: unknown) => ({
        // Reading the upload or starting the process failed: an environment problem, retried.
        kind: 'crashed' as const,
        detail: err instanceof Error ? err.message : String(err),
      }))
      // The outcome's write comes after the last progress write, never before it.
      await progress.close()
      const result = await recordOutcome(this.#ctx, job, outcome)
      const { triangles, maxRssKb, propertiesTruncated } = outcome.kind === 'converted' ? outcome : {}
      const ms = Date.now() - started
      this.#log.info(
        { jobId: job.jobId, fileId: job.fileId, attempt: job.attempt, result, ms, triangles, maxRssKb },
        'conversion finished',
      )
      if (propertiesTruncated?.length) {
        // The bounds of docs/conversion.md ("Model properties") cut some of the model's data.
        this.#log.warn({ jobId: job.jobId, fileId: job.fileId, propertiesTruncated }, 'model properties cut')
      }
    } catch (err) {
      // The lease runs out and another claim retries the job.
      this.#log.error({ err, jobId: job.jobId }, 'could not record a conversion outcome')
    } finally {
      await progress.close()
      await run.dispose().catch(() => {})
    }
  }
}
