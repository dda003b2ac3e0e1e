// The contract between Tessera and the outside: the records the API answers and events carry, the
// webhook envelope, the event names and the attempt error codes. Pure TypeBox and data, no I/O: the
// server's modules and a typed SDK import it alike.
export {
  ANNOTATION_PERMISSION_KEYS,
  type AnnotationPermissionKey,
  AnnotationPermissions,
  type AnnotationPermissionsShape,
  AnnotationRecord,
  AnnotationRecordInUpdate,
  type AnnotationRecordShape,
} from './annotation.ts'
export { ATTEMPT_ERROR_CODES, type AttemptErrorCode } from './attempt-errors.ts'
export { AttributeUpdatedData, NodeIdToAttributes } from './attributes.ts'
export {
  ConfigurationEventRecord,
  ConfigurationRecord,
  type ConfigurationRecordShape,
  ConfigurationRemovedRecord,
  type ConfigurationSettings,
  defaultConfigurationSettings,
} from './configuration.ts'
export {
  EVENT_DATA,
  type EventData,
  WEBHOOK_PAYLOADS,
  WebhookEnvelope,
  type WebhookPayload,
} from './envelope.ts'
export { EVENT_NAMES, type EventName, isEventName } from './events.ts'
export { FileRecord, FileRoleEntry, type FileState, FileStateSchema, ShareRole } from './file-record.ts'
export { ID_PATTERN } from './ids.ts'
export { type OpenApiWebhook, openApiWebhooks } from './openapi-webhooks.ts'
export { type SampleContext, sampleData } from './samples.ts'
