// The delivery worker: claims due deliveries, POSTs them with sendAttempt and records every attempt.
//
// Work happens in rounds, one transaction each: first the results of the attempts that finished
// since the last round (record.ts), then a claim for the free slots (claim.ts). A round starts when
// something wakes the worker (an emit, a finished attempt, a NOTIFY) and every wake-up that arrives
// while a round runs is served by the next one, so a burst of emits or of finished attempts costs
// one transaction, not one each. Results wait in memory at most one round; until they are recorded
// their deliveries stay leased, so a crash re-sends them (at-least-once) and their slots stay counted.
// PostgreSQL: claims run under a short advisory lock, so the per-webhook in-flight cap holds across
// processes, and LISTEN/NOTIFY wakes the worker; SQLite: emitEvent wakes the in-process worker
// directly. A slow poll covers retries held elsewhere, expired leases and lost notifications.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Config } from '../../platform/config.ts'
import { commitWithoutFlushWait, type Db, lockResource } from '../../platform/db/index.ts'
import { leaseMs, listenForWork } from '../../platform/jobs.ts'
import { sendAttempt } from './attempt.ts'
import { type Claimed, claimDue, type Job } from './claim.ts'
import type { DeliveryMetrics, DeliveryOutcome } from './metrics.ts'
import { deliveryChannel, type HandOff, registerHandOff } from './outbox.ts'
import { type Finished, type Recorded, recordResults } from './record.ts'
import { signatureHeaders } from './signing.ts'

export { nextDelay } from './record.ts'

export interface WorkerOptions {
  db: Db
  config: Config
  log: Logger
  /** Deliveries claimed per round. */
  batchSize?: number
  /** Attempts in flight in this process, all webhooks together. */
  maxInFlight?: number
  /** Longest sleep between rounds when nothing wakes the worker. */
  pollMs?: number
  /** Where attempts and outcomes are counted (the app's /metrics). */
  metrics?: DeliveryMetrics
}

export { leaseMs }

/** Bounds of the pause between two busy rounds (see #run). */
const MIN_SPACING_MS = 1
const MAX_SPACING_MS = 10
/**
 * The pause before a round that only records results. Nothing waits on it: the receiver has its
 * delivery, and the slot is free already (see canTake and claimDue). A longer pause lets one
 * transaction record more results; until then they stay leased, so a crash re-sends them.
 */
const RECORD_SPACING_MS = 5

function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * The POST body: the envelope `{file, event, data, owner, runTimestamp, uuid}`, in that order. `data`
 * is stored as the JSON text JSON.stringify made of the event's data (outbox.ts, deliveries.ts), so
 * it goes in as it is instead of being parsed and serialised again for every attempt.
 */
export function envelopeBody(job: Job): string {
  const text = JSON.stringify
  return `{"file":${text(job.file_id)},"event":${text(job.event)},"data":${job.data},"owner":${text(job.owner_email)},"runTimestamp":${text(Number(job.run_timestamp))},"uuid":${text(job.uuid)}}`
}

export class DeliveryWorker implements HandOff {
  readonly id = randomUUID()
  readonly leaseMs: number
  readonly db: Db
  readonly #config: Config
  readonly #log: Logger
  readonly #batchSize: number
  readonly #maxInFlight: number
  readonly #pollMs: number
  readonly #metrics: DeliveryMetrics | undefined
  readonly #inFlight = new Map<string, Promise<void>>()
  /** Finished attempts waiting for the next round to record them. */
  #finished: Finished[] = []
  #running = false
  #loop: Promise<void> | null = null
  #wakeUp: (() => void) | null = null
  #woken = false
  #stopListening: (() => Promise<void>) | null = null
  #stopHandOffs: (() => void) | null = null
  /** Slots held for deliveries handed over by transactions not yet ended. */
  #reserved = 0
  /**
   * Whether the next round claims (besides recording): something woke the worker, or the last
   * claim left due deliveries behind for want of slots, which a finished attempt may have freed.
   */
  #claimWanted = true

  constructor(options: WorkerOptions) {
    this.db = options.db
    this.#config = options.config
    this.#log = options.log.child({ component: 'webhook-worker' })
    this.#batchSize = options.batchSize ?? 50
    this.#maxInFlight = options.maxInFlight ?? 256
    this.#pollMs = options.pollMs ?? 2000
    this.#metrics = options.metrics
    this.leaseMs = leaseMs(this.#config.webhookTimeoutMs)
  }

  start(): void {
    if (this.#running) return
    this.#running = true
    this.#stopListening = listenForWork(this, deliveryChannel, {
      databaseUrl: this.#config.databaseUrl,
      log: this.#log,
    })
    this.#stopHandOffs = registerHandOff(this.db, this)
    this.#loop = this.#run()
  }

  /** Stops claiming, lets attempts in flight finish (bounded by the timeout), records them, releases leases. */
  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    this.#stopHandOffs?.()
    this.#stopHandOffs = null
    await this.#stopListening?.()
    this.#stopListening = null
    this.wake()
    await this.#loop
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...this.#inFlight.values()]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, this.#config.webhookTimeoutMs + 1000)
      }),
    ])
    clearTimeout(timer)
    try {
      await this.#round(0)
    } catch (err) {
      this.#log.warn({ err }, 'could not record the last attempts')
    }
    try {
      await this.db.kysely
        .updateTable('deliveries')
        .set({ status: 'pending', lease_expires_at: null, leased_by: null, updated_at: Date.now() })
        .where('leased_by', '=', this.id)
        .where('status', '=', 'delivering')
        .execute()
    } catch (err) {
      this.#log.warn({ err }, 'could not release delivery leases')
    }
  }

  wake(): void {
    this.#claimWanted = true
    this.#poke()
  }

  /** Starts a round soon (to record results; to claim only if #claimWanted). */
  #poke(): void {
    this.#woken = true
    this.#wakeUp?.()
  }

  canTake(webhookId: string, leases: number): boolean {
    if (!this.#running || this.#inFlight.size + this.#reserved >= this.#maxInFlight) return false
    // Leases of attempts that finished here but are not recorded yet hold no connection.
    let finished = 0
    for (const item of this.#finished) if (item.job.webhook_id === webhookId) finished += 1
    return leases - finished < this.#config.webhookMaxInFlight
  }

  reserve(): void {
    this.#reserved += 1
  }

  settle(jobs: Job[], committed: boolean): void {
    this.#reserved -= jobs.length
    // A worker stopping meanwhile releases the leases it holds, these included (see stop).
    if (committed && this.#running) for (const job of jobs) this.#launch(job)
  }

  /** Sleeps until woken (answers true) or until `ms` ran out (false). */
  #sleep(ms: number): Promise<boolean> {
    if (this.#woken || !this.#running) return Promise.resolve(true)
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), Math.max(0, ms))
      const done = (woken: boolean): void => {
        clearTimeout(timer)
        this.#wakeUp = null
        resolve(woken)
      }
      this.#wakeUp = () => done(true)
    })
  }

  async #run(): Promise<void> {
    let spacing = MIN_SPACING_MS
    let nextDueAt: number | null = null
    while (this.#running) {
      // Coalesce wake-ups: a round starts a moment after the wake-up (1 ms, or as long as the last
      // busy round took, up to 10 ms), and every emit, finished attempt or NOTIFY arriving meanwhile
      // is served by that one round. Under load each transaction then carries several results and
      // claims instead of one; a slower database (PostgreSQL commits) gets proportionally fewer.
      await sleepMs(this.#claimWanted ? spacing : Math.max(spacing, RECORD_SPACING_MS))
      if (!this.#running) break
      this.#woken = false
      try {
        const claiming = this.#claimWanted
        this.#claimWanted = false
        const free = this.#maxInFlight - this.#inFlight.size - this.#reserved
        const capacity = claiming ? Math.max(0, Math.min(free, this.#batchSize)) : 0
        // No free slot here: claim once one frees up.
        if (claiming && capacity === 0) this.#claimWanted = true
        const started = performance.now()
        const recording = this.#finished.length
        const claimed = await this.#round(capacity)
        for (const job of claimed.jobs) this.#launch(job)
        if (capacity > 0) nextDueAt = claimed.nextDueAt
        if (claimed.saturated || claimed.more) this.#claimWanted = true
        const took = performance.now() - started
        const busy = recording > 0 || claimed.jobs.length > 0
        spacing = busy ? Math.min(MAX_SPACING_MS, Math.max(MIN_SPACING_MS, took)) : MIN_SPACING_MS
        // Cut short by the batch size: more is due right now.
        if (claimed.more && claimed.jobs.length > 0) continue
      } catch (err) {
        this.#claimWanted = true
        if (!this.#running) break
        this.#log.error({ err }, 'delivery round failed')
        nextDueAt = Date.now() + 1000
      }
      const waitMs = nextDueAt === null ? this.#pollMs : Math.min(this.#pollMs, nextDueAt - Date.now())
      // The timer ran out (a retry or a lease due, or the slow poll): the next round claims.
      if (!(await this.#sleep(waitMs))) this.#claimWanted = true
    }
  }

  /** Records the finished attempts and claims up to `limit` deliveries, in one transaction. */
  async #round(limit: number): Promise<Claimed> {
    const none: Claimed = { jobs: [], more: false, saturated: false, nextDueAt: null }
    if (limit === 0 && this.#finished.length === 0) return none
    const batch = this.#finished
    this.#finished = []
    const { db } = this
    const options = { db, workerId: this.id, config: this.#config }
    let recorded: Recorded[] = []
    try {
      const claimed = await db.kysely.transaction().execute(async (tx) => {
        // Lost in a database crash, a round's writes only make an attempt go out again.
        await commitWithoutFlushWait(db, tx)
        if (batch.length > 0) recorded = await recordResults(tx, batch, options)
        // A failed attempt may have been rescheduled: the next round claims and learns when.
        if (batch.some((item) => !item.result.ok)) this.#claimWanted = true
        if (limit === 0) return none
        // One claimer at a time per database, so in-flight counts per webhook cannot race. Taken
        // after recording: the results' writes need no lock and should not lengthen its hold.
        await lockResource(db, tx, 'tessera.webhook-claim')
        return claimDue(tx, {
          db,
          workerId: this.id,
          limit,
          maxPerHook: this.#config.webhookMaxInFlight,
          leaseMs: this.leaseMs,
        })
      })
      this.#report(batch, recorded)
      return claimed
    } catch (err) {
      if (batch.length === 0) throw err
      // One bad result (say, its delivery was deleted with its webhook) must not hold up the others.
      await this.#recordOneByOne(batch)
      throw err
    }
  }

  async #recordOneByOne(batch: Finished[]): Promise<void> {
    const options = { db: this.db, workerId: this.id, config: this.#config }
    for (const item of batch) {
      try {
        const recorded = await this.db.kysely
          .transaction()
          .execute((tx) => recordResults(tx, [item], options))
        this.#report([item], recorded)
      } catch (err) {
        // Not recorded: the lease runs out and another attempt is made (at-least-once).
        this.#log.error({ err, delivery: item.job.id }, 'could not record a delivery attempt')
      }
    }
  }

  #report(batch: Finished[], recorded: Recorded[]): void {
    batch.forEach(({ job, result }, i) => {
      const outcome = recorded[i]
      this.#metrics?.attempt(result.errorCode)
      if (outcome?.status && outcome.status !== 'pending') {
        this.#metrics?.outcome(outcome.status as DeliveryOutcome)
        if (outcome.status === 'succeeded') this.#metrics?.latency(outcome.at - job.event_created_at)
      }
      if (outcome?.disabled)
        this.#log.warn({ webhook: job.webhook_id, reason: outcome.disabled }, 'webhook disabled')
      this.#log.debug(
        {
          delivery: job.id,
          attempt: job.attempts + 1,
          ok: result.ok,
          status: result.status,
          code: result.errorCode,
        },
        'webhook attempt',
      )
    })
  }

  #launch(job: Job): void {
    const work = this.#deliver(job)
      .catch((err) => this.#log.error({ err, delivery: job.id }, 'delivery failed unexpectedly'))
      .finally(() => {
        this.#inFlight.delete(job.id)
        this.#poke()
      })
    this.#inFlight.set(job.id, work)
  }

  async #deliver(job: Job): Promise<void> {
    if (job.webhook_disabled === 1 && job.is_test === 0) {
      await this.db.kysely
        .updateTable('deliveries')
        .set({ status: 'paused', leased_by: null, lease_expires_at: null, updated_at: Date.now() })
        .where('id', '=', job.id)
        .where('leased_by', '=', this.id)
        .execute()
      this.#metrics?.outcome('paused')
      return
    }
    const body = envelopeBody(job)
    const started = Date.now()
    const secrets = [job.secret]
    if (job.previous_secret && (job.previous_secret_expires_at ?? 0) > started)
      secrets.push(job.previous_secret)
    const result = await sendAttempt({
      url: job.url,
      body,
      headers: {
        'content-type': 'application/json',
        'x-service-token': job.service_token,
        ...(job.is_test === 1 ? { 'x-service-test': '1' } : {}),
        ...signatureHeaders({ msgId: job.uuid, timestampSec: Math.floor(started / 1000), body, secrets }),
      },
      timeoutMs: this.#config.webhookTimeoutMs,
      allowPrivate: this.#config.webhookAllowPrivateUrls,
    })
    this.#finished.push({ job, started, result })
  }
}
