// The live event stream: GET /events/stream (Server-Sent Events). The hub that reads and fans out
// events is the stream layer (stream/, hub.ts); this module is its HTTP face.
export { streamRoutes } from './routes.ts'
