// The contract between Tessera and the outside: the records the API answers and events carry, the
// webhook envelope, the event names and the attempt error codes. Pure TypeBox and data, no I/O: the
// server's modules and a typed SDK import it alike.
export {
  ANNOTATION_PERMISSION_KEYS,
  type AnnotationPermissionKey,
  type AnnotationPermissionsShape,
  AnnotationRecord,
  type AnnotationRecordShape,
} from './annotation.ts'
export { ATTEMPT_ERROR_CODES, type AttemptErrorCode } from './attempt-errors.ts'
export { NodeIdToAttributes } from './attributes.ts'
export {
  CAMERA_FOV_PRESETS,
  ConfigurationRecord,
  type ConfigurationRecordShape,
  type ConfigurationSettings,
  defaultConfigurationSettings,
} from './configuration.ts'
export {
  AnnotationReply,
  type AnnotationReplyShape,
  REPLY_MAX_CHARS,
} from './discussion.ts'
export {
  EVENT_DATA,
  type EventData,
  WEBHOOK_PAYLOADS,
  WebhookEnvelope,
} from './envelope.ts'
export { EVENT_NAMES, type EventName, isEventName } from './events.ts'
export { FileRecord, type FileState, ShareRole } from './file-record.ts'
export { ID_PATTERN } from './ids.ts'
export { openApiWebhooks } from './openapi-webhooks.ts'
export { CursorParam, LimitParam, NextCursor, NextCursorUnlessUnpaged } from './paging.ts'
export {
  NodeIdToProperties,
  PropertyUnits,
  SearchCondition,
} from './properties.ts'
export { type SampleContext, sampleData } from './samples.ts'
