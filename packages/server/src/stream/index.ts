// The live event stream: the hub of each process reads the events emitEvent committed to the
// stream's log (events/ writes `event_stream`) and fans them out to the open streams; the HTTP
// route is modules/stream. The only door of stream/.

export type { StreamHub } from './hub.ts'
export { createStreamHub } from './open.ts'
export { streamSettings } from './settings.ts'
export type { StreamSink } from './subscriber.ts'
