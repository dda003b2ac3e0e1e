// The delivery engine: subscribes to the event outbox (fan-out.ts: one delivery per webhook, in the
// emitting transaction), claims due deliveries, sends them to the receivers (SSRF-vetted, signed) and
// records every attempt, with the operations of the delivery log. The only door of delivery/.

export { subscribeDeliveries } from './fan-out.ts'
export { type DeliveryPorts, HandOffPort, type Job } from './hand-off-port.ts'
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
export { emitTestDelivery } from './test-delivery.ts'
export { deliveryChannel, wakeWorkers } from './wake.ts'
export { DeliveryWorker } from './worker.ts'
