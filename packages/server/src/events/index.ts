// The event outbox: emitEvent writes an event and its live stream rows in the caller's transaction,
// and runs the registered subscribers' hooks (the delivery engine's fan-out) in it. The only door of
// events/.
export {
  type EmitInput,
  type EventPorts,
  emitEvent,
  emitStreamTestEvent,
  writeSampleEvent,
} from './outbox.ts'
export {
  EventRetention,
  noteFileDeleted,
  pruneEvents,
  type RetentionConfig,
} from './retention.ts'
export { eventSettings } from './settings.ts'
export { streamUuid } from './stream-log.ts'
export {
  type EmitContext,
  type EmitHook,
  type EmittedEvent,
  type OutboxSubscriber,
  onEmit,
  type StatementPart,
} from './subscribers.ts'
export { streamChannel } from './wake.ts'
