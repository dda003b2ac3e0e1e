// The delivery worker: claims due deliveries in batches, POSTs them with sendAttempt, logs every
// attempt and schedules the next one. PostgreSQL: claims use FOR UPDATE SKIP LOCKED (under a short
// advisory lock so the per-webhook in-flight cap holds across processes) and LISTEN/NOTIFY wakes
// the worker; SQLite: emitEvent wakes the in-process worker directly. A slow poll covers retries,
// expired leases and lost notifications.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Config } from '../../platform/config.ts'
import { type Db, type Executor, lockResource, type Tx } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import { leaseMs, PgListener } from '../../platform/jobs.ts'
import { type AttemptResult, sendAttempt } from './attempt.ts'
import type { DeliveryMetrics, DeliveryOutcome } from './metrics.ts'
import { deliveryChannel } from './outbox.ts'
import * as repo from './repository.ts'
import { signatureHeaders } from './signing.ts'

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

const JITTER = 0.2

interface Job {
  id: string
  uuid: string
  attempts: number
  owner_email: string
  webhook_id: string
  url: string
  secret: string
  service_token: string
  previous_secret: string | null
  previous_secret_expires_at: number | null
  webhook_disabled: number
  /** A test delivery: sent with `x-service-test: 1`, even while disabled, never touching health. */
  is_test: number
  event_created_at: number
  file_id: string
  event: string
  data: string
  run_timestamp: number
}

/** Delay before attempt `attemptIndex` (0-based) with ±20% jitter; Retry-After within bounds. */
export function nextDelay(
  schedule: number[],
  attemptIndex: number,
  retryAfterMs: number | null,
  random = Math.random(),
): number {
  const base = schedule[attemptIndex] ?? 0
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random))
  if (retryAfterMs === null) return jittered
  // Honour the receiver's back-off, but never sooner than planned nor later than the longest step.
  const ceiling = Math.max(jittered, ...schedule)
  return Math.min(Math.max(retryAfterMs, jittered), ceiling)
}

export class DeliveryWorker {
  readonly id = randomUUID()
  readonly db: Db
  readonly #config: Config
  readonly #log: Logger
  readonly #batchSize: number
  readonly #maxInFlight: number
  readonly #pollMs: number
  readonly #metrics: DeliveryMetrics | undefined
  readonly #inFlight = new Map<string, Promise<void>>()
  #running = false
  #loop: Promise<void> | null = null
  #wakeUp: (() => void) | null = null
  #woken = false
  #unregister: (() => void) | null = null
  #listener: PgListener | null = null

  constructor(options: WorkerOptions) {
    this.db = options.db
    this.#config = options.config
    this.#log = options.log.child({ component: 'webhook-worker' })
    this.#batchSize = options.batchSize ?? 50
    this.#maxInFlight = options.maxInFlight ?? 256
    this.#pollMs = options.pollMs ?? 2000
    this.#metrics = options.metrics
  }

  start(): void {
    if (this.#running) return
    this.#running = true
    this.#unregister = deliveryChannel.register(this)
    if (this.db.dialect === 'postgres' && this.#config.databaseUrl) {
      this.#listener = new PgListener({
        databaseUrl: this.#config.databaseUrl,
        channel: deliveryChannel.name,
        onNotify: () => this.wake(),
        log: this.#log,
      })
      this.#listener.start()
    }
    this.#loop = this.#run()
  }

  /** Stops claiming, lets attempts in flight finish (bounded by the timeout), releases leases. */
  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    this.#unregister?.()
    await this.#listener?.stop()
    this.#listener = null
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
    this.#woken = true
    this.#wakeUp?.()
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken || !this.#running) return Promise.resolve()
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms))
      function done(): void {
        clearTimeout(timer)
        resolve()
      }
      this.#wakeUp = done
    }).then(() => {
      this.#wakeUp = null
    })
  }

  async #run(): Promise<void> {
    while (this.#running) {
      this.#woken = false
      let waitMs = this.#pollMs
      try {
        const capacity = this.#maxInFlight - this.#inFlight.size
        if (capacity > 0) {
          const { jobs, more } = await this.#claim(Math.min(capacity, this.#batchSize))
          for (const job of jobs) this.#launch(job)
          if (more && jobs.length > 0) continue
          if (!more) waitMs = Math.min(waitMs, await this.#nextDueIn())
          // `more` without jobs: every due delivery waits for an in-flight slot of its webhook;
          // a finishing attempt wakes us.
        }
      } catch (err) {
        if (!this.#running) break
        this.#log.error({ err }, 'claiming deliveries failed')
        waitMs = 1000
      }
      await this.#sleep(waitMs)
    }
  }

  /** Milliseconds until the next pending delivery is due or a lease expires (capped by the poll). */
  async #nextDueIn(): Promise<number> {
    // Deliveries waiting for a slot of a saturated webhook are not "due" here: a finishing attempt
    // wakes the worker for them. Counting them would spin the loop while a receiver hangs.
    const row = await this.db.kysely
      .selectFrom('deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('next'))
      .where('status', '=', 'pending')
      .where('webhook_id', 'not in', this.#saturated(this.db.kysely, Date.now()))
      .executeTakeFirst()
    const lease = await this.db.kysely
      .selectFrom('deliveries')
      .select((eb) => eb.fn.min('lease_expires_at').as('next'))
      .where('status', '=', 'delivering')
      .executeTakeFirst()
    const now = Date.now()
    const candidates = [row?.next, lease?.next]
      .filter((v) => v !== null && v !== undefined)
      .map((v) => Number(v) - now)
    return candidates.length === 0 ? this.#pollMs : Math.max(0, Math.min(...candidates))
  }

  /** Webhooks with TESSERA_WEBHOOK_MAX_IN_FLIGHT attempts in flight (a subquery of their ids). */
  #saturated(db: Executor, now: number) {
    return db
      .selectFrom('deliveries')
      .select('webhook_id')
      .where('status', '=', 'delivering')
      .where('lease_expires_at', '>', now)
      .groupBy('webhook_id')
      .having((eb) => eb.fn.countAll(), '>=', this.#config.webhookMaxInFlight)
  }

  async #claim(limit: number): Promise<{ jobs: Job[]; more: boolean }> {
    const { db } = this
    const maxPerHook = this.#config.webhookMaxInFlight
    return db.kysely.transaction().execute(async (tx) => {
      // One claimer at a time per database, so in-flight counts per webhook cannot race.
      await lockResource(db, tx, 'tessera.webhook-claim')
      const now = Date.now()
      const busy = this.#saturated(tx, now)
      // Two queries, not one with OR: each walks the (status, next_attempt_at) index in order and
      // stops at the limit. An OR (or a tie-break on id) made every claim sort the whole due
      // backlog, which made a deep backlog quadratic. Rows tied on next_attempt_at come out in
      // insertion order on SQLite and in no defined order on PostgreSQL; both are fine.
      let expired = tx
        .selectFrom('deliveries')
        .select(['id', 'webhook_id'])
        .where('status', '=', 'delivering')
        .where('lease_expires_at', '<=', now)
        .where('webhook_id', 'not in', busy)
        .orderBy('lease_expires_at')
        .limit(limit * 4)
      let due = tx
        .selectFrom('deliveries')
        .select(['id', 'webhook_id'])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where('webhook_id', 'not in', busy)
        .orderBy('next_attempt_at')
        .limit(limit * 4)
      if (db.dialect === 'postgres') {
        expired = expired.forUpdate().skipLocked()
        due = due.forUpdate().skipLocked()
      }
      const candidates = await expired.execute()
      if (candidates.length < limit * 4)
        candidates.push(...(await due.execute()).slice(0, limit * 4 - candidates.length))
      if (candidates.length === 0) return { jobs: [], more: false }

      const hookIds = [...new Set(candidates.map((c) => c.webhook_id))]
      const counts = await tx
        .selectFrom('deliveries')
        .select(['webhook_id', (eb) => eb.fn.countAll<number | string>().as('n')])
        .where('status', '=', 'delivering')
        .where('lease_expires_at', '>', now)
        .where('webhook_id', 'in', hookIds)
        .groupBy('webhook_id')
        .execute()
      const used = new Map(counts.map((c) => [c.webhook_id, Number(c.n)]))
      const chosen: string[] = []
      let skipped = false
      for (const c of candidates) {
        const n = used.get(c.webhook_id) ?? 0
        if (n >= maxPerHook || chosen.length >= limit) {
          skipped = true
          continue
        }
        used.set(c.webhook_id, n + 1)
        chosen.push(c.id)
      }
      if (chosen.length === 0) return { jobs: [], more: skipped }
      await tx
        .updateTable('deliveries')
        .set({
          status: 'delivering',
          leased_by: this.id,
          lease_expires_at: now + leaseMs(this.#config.webhookTimeoutMs),
          updated_at: now,
        })
        .where('id', 'in', chosen)
        .execute()
      const jobs = await loadJobs(tx, chosen)
      // Another round right away only if this one was cut short by the limits. Deliveries skipped
      // for a saturated webhook wait for a slot: a finishing attempt wakes the worker, and claiming
      // again at once would only find them blocked, costing a transaction per delivery.
      return { jobs, more: chosen.length >= limit || candidates.length >= limit * 4 }
    })
  }

  #launch(job: Job): void {
    const work = this.#deliver(job)
      .catch((err) => this.#log.error({ err, delivery: job.id }, 'delivery failed unexpectedly'))
      .finally(() => {
        this.#inFlight.delete(job.id)
        this.wake()
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
    const body = JSON.stringify({
      file: job.file_id,
      event: job.event,
      data: JSON.parse(job.data) as unknown,
      owner: job.owner_email,
      runTimestamp: job.run_timestamp,
      uuid: job.uuid,
    })
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
    await this.#record(job, started, result)
  }

  async #record(job: Job, started: number, result: AttemptResult): Promise<void> {
    const attempt = job.attempts + 1
    const schedule = this.#config.webhookRetryScheduleMs
    // Test deliveries are probes: their outcome never moves the webhook's health.
    const counts = job.is_test === 0
    const recorded = await this.db.kysely.transaction().execute(async (tx) => {
      const now = Date.now()
      await repo.insertAttempt(tx, {
        id: newId(now),
        delivery_id: job.id,
        attempt,
        started_at: started,
        duration_ms: result.durationMs,
        status_code: result.status,
        error_code: result.errorCode,
        error_message: result.errorMessage,
        response_excerpt: result.responseExcerpt,
      })
      const hook = await tx
        .selectFrom('webhooks')
        .select(['disabled', 'failing_since'])
        .where('id', '=', job.webhook_id)
        .executeTakeFirst()
      let status: string
      let nextAt = now
      let disableReason: string | null = null
      if (result.ok) {
        status = 'succeeded'
        if (counts && hook?.failing_since !== null) {
          await tx
            .updateTable('webhooks')
            .set({ failing_since: null })
            .where('id', '=', job.webhook_id)
            .execute()
        }
      } else {
        if (counts && result.gone) disableReason = 'gone'
        else if (counts && hook && hook.disabled === 0) {
          const since = hook.failing_since ?? now
          if (now - since >= this.#config.webhookDisableAfterMs) disableReason = 'failing'
          else if (hook.failing_since === null) {
            await tx
              .updateTable('webhooks')
              .set({ failing_since: now })
              .where('id', '=', job.webhook_id)
              .execute()
          }
        }
        if (attempt >= schedule.length) status = 'failed'
        else if (counts && (disableReason || hook?.disabled === 1)) status = 'paused'
        else {
          status = 'pending'
          nextAt = now + nextDelay(schedule, attempt, result.retryAfterMs)
        }
        if (result.gone) status = 'failed'
      }
      const updated = await tx
        .updateTable('deliveries')
        .set((eb) => ({
          status,
          attempts: eb('attempts', '+', 1),
          next_attempt_at: nextAt,
          leased_by: null,
          lease_expires_at: null,
          last_status_code: result.status,
          last_error_code: result.errorCode,
          updated_at: now,
          completed_at: status === 'succeeded' || status === 'failed' ? now : null,
        }))
        .where('id', '=', job.id)
        .where('leased_by', '=', this.id)
        .where('status', '=', 'delivering')
        .executeTakeFirst()
      if (disableReason && hook?.disabled === 0) {
        await repo.updateWebhook(tx, job.webhook_id, { disabled: 1, disabled_reason: disableReason }, now)
        await repo.pauseQueuedDeliveries(tx, job.webhook_id, now)
        this.#log.warn({ webhook: job.webhook_id, reason: disableReason }, 'webhook disabled')
      }
      // null: the lease was lost (taken over or re-queued by hand); the new holder reports.
      return Number(updated.numUpdatedRows) > 0 ? { status, at: now } : null
    })
    this.#metrics?.attempt(result.errorCode)
    if (recorded && recorded.status !== 'pending') {
      this.#metrics?.outcome(recorded.status as DeliveryOutcome)
      if (recorded.status === 'succeeded') this.#metrics?.latency(recorded.at - job.event_created_at)
    }
    this.#log.debug(
      { delivery: job.id, attempt, ok: result.ok, status: result.status, code: result.errorCode },
      'webhook attempt',
    )
  }
}

function loadJobs(tx: Tx, ids: string[]): Promise<Job[]> {
  return tx
    .selectFrom('deliveries')
    .innerJoin('webhooks', 'webhooks.id', 'deliveries.webhook_id')
    .innerJoin('events', 'events.id', 'deliveries.event_id')
    .select([
      'deliveries.id',
      'deliveries.uuid',
      'deliveries.attempts',
      'deliveries.owner_email',
      'deliveries.webhook_id',
      'webhooks.url',
      'webhooks.secret',
      'webhooks.service_token',
      'webhooks.previous_secret',
      'webhooks.previous_secret_expires_at',
      'webhooks.disabled as webhook_disabled',
      'deliveries.is_test',
      'events.created_at as event_created_at',
      'events.file_id',
      'events.event',
      'events.data',
      'events.run_timestamp',
    ])
    .where('deliveries.id', 'in', ids)
    .orderBy('deliveries.next_attempt_at')
    .execute()
}
