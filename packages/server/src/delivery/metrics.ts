// Delivery metrics. Counters and the latency histogram are fed by the worker of this process; the
// backlog gauges are computed at scrape time from the database, so they are right whichever
// process delivers.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { ATTEMPT_ERROR_CODES } from '../contract/index.ts'
import type { Db } from '../platform/db/index.ts'
import { dueBacklog } from './store-queue.ts'

/** What a delivery came to after an attempt: sent, dead, or parked behind a disabled webhook. */
export type DeliveryOutcome = 'succeeded' | 'failed' | 'paused'

export interface DeliveryMetrics {
  /** One finished attempt; `errorCode` null for a success. */
  attempt(errorCode: string | null): void
  outcome(outcome: DeliveryOutcome): void
  /** Event created → receiver acknowledged, retries included. */
  latency(ms: number): void
}

// From a fast loopback receiver up to the retry schedule's hours.
const LATENCY_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 21_600, 86_400,
]

export function createDeliveryMetrics(registry: Registry, db: Db): DeliveryMetrics {
  const deliveries = new Counter({
    name: 'tessera_webhook_deliveries_total',
    help: 'Webhook deliveries by outcome (succeeded, failed after the last attempt, paused)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  const attempts = new Counter({
    name: 'tessera_webhook_attempts_total',
    help: 'Webhook delivery attempts by error code (none = success)',
    labelNames: ['code'] as const,
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'tessera_webhook_delivery_latency_seconds',
    help: 'Time from the event to the successful delivery, retries included',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  })
  // Every series exists from the start, so rates and alerts work before the first failure.
  for (const outcome of ['succeeded', 'failed', 'paused']) deliveries.inc({ outcome }, 0)
  for (const code of ['none', ...ATTEMPT_ERROR_CODES]) attempts.inc({ code }, 0)

  // Both gauges are collected in the same scrape: they share one query.
  let pending: Promise<{ count: number; oldestDueAt: number | null; now: number }> | null = null
  const backlog = () => {
    pending ??= (async () => {
      const now = Date.now()
      try {
        return { ...(await dueBacklog(db.kysely, now)), now }
      } finally {
        pending = null
      }
    })()
    return pending
  }
  new Gauge({
    name: 'tessera_webhook_due_backlog',
    help: 'Deliveries due now and not in flight',
    registers: [registry],
    async collect() {
      this.set((await backlog()).count)
    },
  })
  new Gauge({
    name: 'tessera_webhook_oldest_due_age_seconds',
    help: 'How long the longest-waiting due delivery has been due (0 when none is)',
    registers: [registry],
    async collect() {
      const { oldestDueAt, now } = await backlog()
      this.set(oldestDueAt === null ? 0 : Math.max(0, now - oldestDueAt) / 1000)
    },
  })

  return {
    attempt: (errorCode) => attempts.inc({ code: errorCode ?? 'none' }),
    outcome: (outcome) => deliveries.inc({ outcome }),
    latency: (ms) => latency.observe(Math.max(0, ms) / 1000),
  }
}
