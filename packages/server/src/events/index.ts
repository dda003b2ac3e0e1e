// The event outbox: emitEvent writes an event and its deliveries in the caller's transaction and
// hands new deliveries to an in-process worker through an injected port; it writes the live stream's
// rows, which the stream layer (stream/) reads. The only door of events/.
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
export { streamUuid } from './stream-log.ts'
export { deliveryChannel, streamChannel, wakeWorkers } from './wake.ts'
