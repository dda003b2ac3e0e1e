// The delivery engine: claims due deliveries, sends them to the receivers (SSRF-vetted, signed) and
// records every attempt, with the operations of the delivery log. The only door of delivery/.

export { createDeliveryMetrics, type DeliveryMetrics } from './metrics.ts'
export { nextDelay } from './record.ts'
export { envelopeBody } from './send.ts'
export { deliverySettings } from './settings.ts'
export { hashServiceToken, secretStrength } from './signing.ts'
export { TargetRefused, vetUrl } from './ssrf.ts'
export {
  type AttemptRecord,
  findLoggedDelivery,
  type LoggedDelivery,
  listAttempts,
  listDeliveries,
  pauseQueuedDeliveries,
  recoverDeliveries,
  releasePausedDeliveries,
  requeueDelivery,
} from './store-queue.ts'
export { DeliveryWorker } from './worker.ts'
