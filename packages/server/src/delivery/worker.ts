// The delivery worker: claims due deliveries, POSTs them and records every attempt.
//
// Work happens in rounds, one transaction each: first the results of the attempts that finished
// since the last round, then a claim for the free slots (recording.ts). A round starts when
// something wakes the worker (an emit, a finished attempt, a NOTIFY) and every wake-up that arrives
// while a round runs is served by the next one, so a burst of emits or of finished attempts costs
// one transaction, not one each (scheduling.ts). Results wait in memory at most one round; until they
// are recorded their deliveries stay leased, so a crash re-sends them (at-least-once) and their slots
// stay counted. PostgreSQL: claims run under a short advisory lock, so the per-webhook in-flight cap
// holds across processes, and LISTEN/NOTIFY wakes the worker; SQLite: the fan-out of an emit hands
// new deliveries to the in-process worker directly (sqlite/fan-out.ts, hand-off.ts). A slow poll
// covers retries held elsewhere, expired leases and lost notifications.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Config } from '../platform/config.ts'
import type { Db } from '../platform/db/index.ts'
import { Alarm, leaseMs, listenForWork } from '../platform/jobs.ts'
import { WorkerHandOff } from './hand-off.ts'
import type { HandOffPort, Job } from './hand-off-port.ts'
import type { DeliveryMetrics } from './metrics.ts'
import { type RoundDone, type RoundOptions, recordAndClaim, recordOneByOne } from './recording.ts'
import { reportAttempts } from './report.ts'
import { Pacer, sleepMs } from './scheduling.ts'
import { sendJob } from './send.ts'
import { Slots } from './slots.ts'
import { pauseLeasedDelivery, releaseLeases } from './store-queue.ts'
import { deliveryChannel } from './wake.ts'

export interface WorkerOptions {
  db: Db
  config: Config
  log: Logger
  /** Where this process's emits hand new deliveries over (ServerContext.deliveryHandOff). */
  handOff?: HandOffPort
  /** Deliveries claimed per round. */
  batchSize?: number
  /** Attempts in flight in this process, all webhooks together. */
  maxInFlight?: number
  /** Longest sleep between rounds when nothing wakes the worker. */
  pollMs?: number
  /** Where attempts and outcomes are counted (the app's /metrics). */
  metrics?: DeliveryMetrics
}

export class DeliveryWorker {
  readonly id = randomUUID()
  readonly leaseMs: number
  readonly db: Db
  readonly #config: Config
  readonly #log: Logger
  readonly #batchSize: number
  readonly #pollMs: number
  readonly #metrics: DeliveryMetrics | undefined
  readonly #handOffPort: HandOffPort | undefined
  readonly #slots: Slots
  readonly #alarm = new Alarm()
  /** Rung by wake() alone (new work), not by finished attempts: ends a pause before a recording round. */
  readonly #claimAlarm = new Alarm()
  #running = false
  #loop: Promise<void> | null = null
  #stopListening: (() => Promise<void>) | null = null
  #detachHandOff: (() => void) | null = null
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
    this.#slots = new Slots(options.maxInFlight ?? 256)
    this.#pollMs = options.pollMs ?? 2000
    this.#metrics = options.metrics
    this.#handOffPort = options.handOff
    this.leaseMs = leaseMs(this.#config.webhookTimeoutMs)
  }

  start(): void {
    if (this.#running) return
    this.#running = true
    this.#stopListening = listenForWork(this, deliveryChannel, { log: this.#log })
    const handOff = new WorkerHandOff({
      db: this.db,
      id: this.id,
      leaseMs: this.leaseMs,
      slots: this.#slots,
      maxPerHook: this.#config.webhookMaxInFlight,
      running: () => this.#running,
      launch: (job) => this.#launch(job),
    })
    this.#detachHandOff = this.#handOffPort?.attach(handOff) ?? null
    this.#loop = this.#run()
  }

  /** Stops claiming, lets attempts in flight finish (bounded by the timeout), records them, releases leases. */
  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    this.#detachHandOff?.()
    this.#detachHandOff = null
    await this.#stopListening?.()
    this.#stopListening = null
    this.wake()
    await this.#loop
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...this.#slots.inFlight.values()]),
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
      await releaseLeases(this.db.kysely, this.id, Date.now())
    } catch (err) {
      this.#log.warn({ err }, 'could not release delivery leases')
    }
  }

  wake(): void {
    this.#claimWanted = true
    this.#alarm.ring()
    this.#claimAlarm.ring()
  }

  /** Sleeps until woken (answers true) or until `ms` ran out (false). */
  #sleep(ms: number): Promise<boolean> {
    return this.#running ? this.#alarm.sleep(ms) : Promise.resolve(true)
  }

  async #run(): Promise<void> {
    const pacer = new Pacer()
    while (this.#running) {
      await this.#pauseBeforeRound(pacer)
      if (!this.#running) break
      this.#alarm.reset()
      this.#claimAlarm.reset()
      try {
        // Cut short by the batch size: more is due right now.
        if (await this.#claimAndLaunch(pacer)) continue
      } catch (err) {
        this.#claimWanted = true
        if (!this.#running) break
        this.#log.error({ err }, 'delivery round failed')
        pacer.nextDueAt = Date.now() + 1000
      }
      // The timer ran out (a retry or a lease due, or the slow poll): the next round claims.
      if (!(await this.#sleep(pacer.idleMs(this.#pollMs)))) this.#claimWanted = true
    }
  }

  /**
   * The pause before the next round (Pacer.pause). The last claim left due deliveries for want of
   * slots: this process's attempts are what frees them, so the round starts as soon as they are all
   * in. A pause before a round that only records ends when new work wakes the worker: the round then
   * claims too, after a claiming round's (shorter) pause, instead of leaving the new delivery waiting
   * the rest of the recording pause.
   */
  async #pauseBeforeRound(pacer: Pacer): Promise<void> {
    const claiming = this.#claimWanted
    const pause = pacer.pause(claiming)
    if (pacer.saturated) return this.#slots.untilDrained(pause)
    if (claiming) return sleepMs(pause)
    if (await this.#claimAlarm.sleep(pause)) await sleepMs(pacer.pause(true))
  }

  /** One round, launching what it claimed; answers whether the next round should follow at once. */
  async #claimAndLaunch(pacer: Pacer): Promise<boolean> {
    const claiming = this.#claimWanted
    this.#claimWanted = false
    const capacity = claiming ? Math.max(0, Math.min(this.#slots.free(), this.#batchSize)) : 0
    // No free slot here: claim once one frees up.
    if (claiming && capacity === 0) this.#claimWanted = true
    const started = performance.now()
    const recording = this.#slots.finishedCount
    const claimed = await this.#round(capacity)
    for (const job of claimed.jobs) this.#launch(job)
    if (capacity > 0) pacer.nextDueAt = claimed.nextDueAt
    if (claimed.saturated || claimed.more) this.#claimWanted = true
    pacer.roundTook(performance.now() - started, recording > 0 || claimed.jobs.length > 0, claimed.saturated)
    return claimed.more && claimed.jobs.length > 0
  }

  /** Records the finished attempts and claims up to `limit` deliveries, in one transaction. */
  async #round(limit: number): Promise<RoundDone['claimed']> {
    if (limit === 0 && this.#slots.finishedCount === 0) {
      return { jobs: [], more: false, saturated: false, nextDueAt: null }
    }
    const batch = this.#slots.takeFinished()
    const options: RoundOptions = {
      db: this.db,
      workerId: this.id,
      config: this.#config,
      leaseMs: this.leaseMs,
    }
    try {
      const { claimed, recorded } = await recordAndClaim(options, batch, limit)
      // A failed attempt may have been rescheduled: the next round claims and learns when.
      if (batch.some((item) => !item.result.ok)) this.#claimWanted = true
      reportAttempts(this.#metrics, this.#log, batch, recorded)
      return claimed
    } catch (err) {
      if (batch.length === 0) throw err
      await recordOneByOne(options, batch, this.#log, (item, recorded) =>
        reportAttempts(this.#metrics, this.#log, [item], recorded),
      )
      throw err
    }
  }

  #launch(job: Job): void {
    const work = this.#deliver(job)
      .catch((err) => this.#log.error({ err, delivery: job.id }, 'delivery failed unexpectedly'))
      .finally(() => {
        this.#slots.ended(job.id)
        // A round soon, to record the result (and to claim only if #claimWanted).
        this.#alarm.ring()
      })
    this.#slots.inFlight.set(job.id, work)
  }

  async #deliver(job: Job): Promise<void> {
    if (job.webhook_disabled === 1 && job.is_test === 0) {
      await pauseLeasedDelivery(this.db.kysely, job.id, this.id, Date.now())
      this.#metrics?.outcome('paused')
      return
    }
    this.#slots.addFinished(await sendJob(job, this.#config))
  }
}
