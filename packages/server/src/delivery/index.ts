// The delivery engine: claims due deliveries, sends them to the receivers (SSRF-vetted, signed) and
// records every attempt, with the operations of the delivery log. The only door of delivery/.
export { closeDeliveryAgents, createDeliveryAgent } from './agent.ts'
export { type AttemptInput, type AttemptResult, parseRetryAfter, sendAttempt } from './attempt.ts'
export { createDeliveryMetrics, type DeliveryMetrics, type DeliveryOutcome } from './metrics.ts'
export { nextDelay } from './record.ts'
export { envelopeBody } from './send.ts'
export { hashServiceToken, secretStrength, signatureHeaders } from './signing.ts'
export { classifyAddress, type LookupAll, TargetRefused, vetUrl } from './ssrf.ts'
export {
  type AttemptRecord,
  type DeliveryPage,
  findLoggedDelivery,
  type LoggedDelivery,
  listAttempts,
  listDeliveries,
  pauseQueuedDeliveries,
  recoverDeliveries,
  releasePausedDeliveries,
  requeueDelivery,
} from './store-queue.ts'
export { DeliveryWorker, type WorkerOptions } from './worker.ts'
