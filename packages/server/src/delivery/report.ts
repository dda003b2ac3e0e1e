// What recorded attempts tell the metrics and the log.
import type { Logger } from 'pino'
import type { DeliveryMetrics, DeliveryOutcome } from './metrics.ts'
import type { Finished, Recorded } from './record.ts'

export function reportAttempts(
  metrics: DeliveryMetrics | undefined,
  log: Logger,
  batch: Finished[],
  recorded: Recorded[],
): void {
  batch.forEach(({ job, result }, i) => {
    const outcome = recorded[i]
    metrics?.attempt(result.errorCode)
    if (outcome?.status && outcome.status !== 'pending') {
      metrics?.outcome(outcome.status as DeliveryOutcome)
      if (outcome.status === 'succeeded') metrics?.latency(outcome.at - job.event_created_at)
    }
    if (outcome?.disabled) log.warn({ webhook: job.webhook_id, reason: outcome.disabled }, 'webhook disabled')
    log.debug(
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
