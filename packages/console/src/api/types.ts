// The records the screens read: names for the SDK's types, which are generated from openapi.json
// (the server's contract), so nothing here restates a field.
import type {
  AnnotationInput,
  AnnotationUpdate,
  Answer,
  ConfigurationInput,
  FileView,
  JsonBody,
  NodeAttributes,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookResource,
} from '@tessera/client'

export type {
  Annotation,
  AnnotationReply,
  BcfImport,
  Configuration,
  DeliveryStatus,
  DiscussionState,
  FileMatch,
  FileRevision,
  FileSearchPage,
  PropertyUnits,
  PropertyValue,
  SceneNode,
  SceneProperties,
  SearchCondition,
  SearchPage,
} from '@tessera/client'

/**
 * A file as the API shows it to me: the record, plus my `role` on it and my `capabilities` (what
 * the server lets me do: every screen offers only those actions).
 */
export type FileRecord = FileView

export type FileCapabilities = FileView['capabilities']

export interface Folder {
  name: string
  path: string
  /** Files in the folder and all below it. */
  fileCount?: number
}

export interface Listing {
  files: FileRecord[]
  folders: Folder[]
  nextCursor?: string | null | undefined
}

export type Attributes = NodeAttributes[string]

/** What the annotation form sends: new (with file and name) or changed fields (with _id). */
export type AnnotationFields = Partial<AnnotationInput> & Partial<AnnotationUpdate>
export type ConfigurationFields = ConfigurationInput

export type Webhook = WebhookResource['attributes']
export type WebhookEvent = Webhook['event']
export type Delivery = WebhookDelivery
export type DeliveryDetail = WebhookDeliveryDetail

export type AccountSummary = Answer<'/admin/accounts', 'get'>['accounts'][number]
export type LicenseUsage = Answer<'/admin/licenses', 'get'>
/** What an admin sends to create an account (the API's own body type). */
export type NewAccount = JsonBody<'/admin/accounts', 'post'>

/** Every event a webhook can subscribe to, in the order the picker shows them. */
export const WEBHOOK_EVENTS = [
  'file_uploaded',
  'file_optimized',
  'file_optimization_failed',
  'file_shared',
  'file_unshared',
  'attribute_updated',
  'annotation_created',
  'annotation_updated',
  'annotation_removed',
  'annotation_discussion_updated',
  'configuration_created',
  'configuration_updated',
  'configuration_removed',
] as const satisfies readonly WebhookEvent[]
