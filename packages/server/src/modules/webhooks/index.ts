// Webhooks: registrations, the transactional event outbox and the delivery worker.
export { EVENT_NAMES, type EventName, isEventName } from './events.ts'
export { createDeliveryMetrics, type DeliveryMetrics } from './metrics.ts'
export { type EmitInput, type Emitted, emitEvent } from './outbox.ts'
export * from './payloads.ts'
export { webhookRoutes } from './routes.ts'
export { MAX_WEBHOOKS_PER_ACCOUNT } from './service.ts'
export { DeliveryWorker } from './worker.ts'
