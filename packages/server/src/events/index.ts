// The event outbox: emitEvent writes an event and its deliveries in the caller's transaction and
// hands new deliveries to an in-process worker through an injected port. The only door of events/.
export { type DeliveryHandOff, type EventPorts, HandOffPort, type Job } from './hand-off.ts'
export {
  type EmitContext,
  type EmitInput,
  type Emitted,
  emitEvent,
  emitStreamTestEvent,
  emitTestDelivery,
  type StreamTestEvent,
  type TestDelivery,
} from './outbox.ts'
export {
  EventRetention,
  firstIdOfSecond,
  noteFileDeleted,
  type Pruned,
  pruneEvents,
  type RetentionConfig,
} from './retention.ts'
export { type StreamConfig, StreamHub, type StreamHubOptions, type StreamStats } from './stream-hub.ts'
export type { StreamSink, StreamSpec, Subscriber } from './stream-subscriber.ts'
export { deliveryChannel, wakeWorkers } from './wake.ts'
