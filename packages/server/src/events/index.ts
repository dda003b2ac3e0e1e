// The event outbox: emitEvent writes an event and its deliveries in the caller's transaction and
// hands new deliveries to an in-process worker through an injected port. The only door of events/.
export { type DeliveryHandOff, type EventPorts, HandOffPort, type Job } from './hand-off.ts'
export {
  type EmitInput,
  emitEvent,
  emitStreamTestEvent,
  emitTestDelivery,
} from './outbox.ts'
export {
  EventRetention,
  noteFileDeleted,
  pruneEvents,
  type RetentionConfig,
} from './retention.ts'
export { eventSettings } from './settings.ts'
export { StreamHub } from './stream-hub.ts'
export type { StreamSink } from './stream-subscriber.ts'
export { deliveryChannel, wakeWorkers } from './wake.ts'
