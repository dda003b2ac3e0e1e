// @tessera/client: the browser-safe entry (also the default in Node). Node-only helpers (upload
// from a path, Node streams) are in @tessera/client/node; the webhook verifier in
// @tessera/client/webhooks.

export type { Admin } from './admin.ts'
export type { BcfExport, BcfOptions, BcfZip } from './bcf.ts'
export { type Account, type ConnectOptions, type Credentials, Tessera, type TestEvent } from './client.ts'
export {
  type ClientCode,
  isSessionLost,
  NoLicenseAvailableError,
  type ProblemCode,
  SessionSupersededError,
  TesseraError,
} from './errors.ts'
export { type EventsOptions, type SseFrame, type StreamItem, sseFrames } from './events.ts'
export type { DownloadOptions, WaitOptions } from './files.ts'
export { type ApiClient, unwrap } from './http.ts'
export {
  type CreatedLink,
  type LinkInput,
  type LinkOptions,
  type LinkSettings,
  type Links,
  TesseraLink,
} from './links.ts'
export {
  type LiveCamera,
  type LiveHandlers,
  type LiveOptions,
  type LiveParticipant,
  LiveSession,
  type LiveSettings,
  liveAsGuest,
} from './live.ts'
export type { ProgressCallback, UploadProgress } from './multipart.ts'
export { type ListOptions, type Page, Paged, type PageRequest } from './paging.ts'
export type {
  AnnotationInput,
  AnnotationUpdate,
  AttributesPage,
  ConfigurationInput,
  ConfigurationThumbnail,
  ConfigurationThumbnailEntry,
} from './records.ts'
export type { RetryOptions } from './retry.ts'
export type { SessionOptions } from './session.ts'
export type * from './types.ts'
export type { UploadOptions, UploadSource } from './upload.ts'
export type {
  CreatedWebhook,
  DeliveryPage,
  DeliveryQuery,
  RecoverResult,
  WebhookInput,
  WebhookResource,
  WebhookUpdate,
} from './webhook-api.ts'
// Types only: the verifier itself stays in @tessera/client/webhooks (it brings bcryptjs).
export type { EnvelopeOf, WebhookEnvelope, WebhookEventName } from './webhooks.ts'
