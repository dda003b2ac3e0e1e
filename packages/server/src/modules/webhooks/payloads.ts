// The webhook payload contract: the envelope and the `data` of every event, field for field and type
// for type as the spec's tables show them (quirks included, for compatibility with receivers written
// against the original service). The typed SDK imports this module and validates deliveries with it,
// so it depends only on typebox and leaf schema modules, never on the server (db, Fastify).
// The annotation and configuration modules answer their HTTP calls with these same record schemas.
import { type Static, type TSchema, Type } from 'typebox'
import { ID_PATTERN } from '../../platform/ids.ts'
// Imported from the leaf schema file rather than files/index.ts: the index pulls in the server.
import { FileRecord } from '../files/schemas.ts'
import { EVENT_NAMES, type EventName } from './events.ts'

const RecordId = Type.String({ pattern: ID_PATTERN })
const Email = Type.String({ description: 'account e-mail' })
const Millis = Type.Integer({ description: 'millisecond Unix timestamp' })
const AccessList = Type.Array(Type.String(), {
  description: 'account e-mails, or "*" for everyone with access to the file; empty: no restriction',
})

/** The nine arrays of an annotation's `permissions`, each gating one aspect for non-authors. */
export const ANNOTATION_PERMISSION_KEYS = [
  'writeTargets',
  'readTargets',
  'delete',
  'writeTitle',
  'readTitle',
  'writeDiscussion',
  'readDiscussion',
  'writeDescription',
  'readDescription',
] as const

export type AnnotationPermissionKey = (typeof ANNOTATION_PERMISSION_KEYS)[number]

export const AnnotationPermissions = Type.Object(
  {
    _id: RecordId,
    writeTargets: AccessList,
    readTargets: AccessList,
    delete: AccessList,
    writeTitle: AccessList,
    readTitle: AccessList,
    writeDiscussion: AccessList,
    readDiscussion: AccessList,
    writeDescription: AccessList,
    readDescription: AccessList,
  },
  { additionalProperties: false },
)

function annotationRecord<P extends TSchema>(permissions: P, options: Record<string, unknown>) {
  return Type.Object(
    {
      _id: RecordId,
      author: Email,
      file: RecordId,
      name: Type.String({ description: 'title' }),
      content: Type.String({ description: 'description text' }),
      type: Type.Integer(),
      color: Type.String({ description: 'CSS-style color' }),
      cameraX: Type.Number(),
      cameraY: Type.Number(),
      cameraZ: Type.Number(),
      date: Millis,
      lastUpdate: Millis,
      targets: Type.Array(Type.Unknown()),
      tags: Type.Array(Type.String()),
      readPermissions: AccessList,
      writePermissions: AccessList,
      permissions,
      __v: Type.Integer({ description: 'revision, incremented on every update' }),
    },
    { additionalProperties: false, ...options },
  )
}

/** The annotation record: `data` of annotation_created and annotation_removed, and the HTTP answers. */
export const AnnotationRecord = annotationRecord(AnnotationPermissions, {
  $id: 'Annotation',
  title: 'Annotation',
})

/** Inside annotation_updated the spec shows `permissions` as an array (holding the one object). */
export const AnnotationRecordInUpdate = annotationRecord(Type.Array(AnnotationPermissions), {
  title: 'AnnotationInUpdate',
})

const configurationFields = {
  _id: RecordId,
  file: RecordId,
  name: Type.String(),
  author: Email,
  lastModificationAuthor: Type.Union([Email, Type.Null()], { description: 'null until the first update' }),
  lockedBy: Type.Union([Type.Null(), Type.String()]),
  lastActivationDate: Type.String({ format: 'date-time' }),
  date: Millis,
  lastModificationDate: Type.Optional(Type.Integer({ description: 'ms; absent until the first update' })),
  disableCamera: Type.Boolean(),
  cameraPosition: Type.Array(Type.Number()),
  cameraType: Type.Union([Type.Null(), Type.String(), Type.Number()]),
  environmentFile: Type.Union([Type.Null(), Type.String()]),
  environmentBrightness: Type.Number(),
  environmentOrientation: Type.Number(),
  layersEnabled: Type.Boolean(),
  enabledLayers: Type.Array(Type.Unknown()),
  behaviorsEnabled: Type.Boolean(),
  enabledBehaviors: Type.Array(RecordId),
  enabledEffects: Type.Array(Type.Unknown()),
  transparencyEffectParameters: Type.Object(
    { alphaCoefficient: Type.Number(), _id: RecordId },
    { additionalProperties: false },
  ),
  explodedViewDistance: Type.Union([Type.Number(), Type.Null()]),
  explodedViewEnabled: Type.Boolean(),
  environmentEnabled: Type.Boolean(),
  skyboxEnabled: Type.Boolean(),
  iblEnabled: Type.Boolean(),
  upVector: Type.String({ description: 'X+, X-, Y+, Y-, Z+ or Z-' }),
  zNear: Type.Number(),
  cameraFoVIndex: Type.Integer(),
  activeOnStart: Type.Boolean(),
  modifiersEnabled: Type.Boolean(),
  modifiers: Type.Array(Type.Unknown()),
  sceneEnabled: Type.Boolean(),
  rememberSelection: Type.Boolean(),
  sceneTree: Type.Integer(),
  selectedNodes: Type.Array(Type.String()),
  autosaveCameraPosition: Type.Boolean(),
  collaborationEnabled: Type.Boolean(),
  collaborativeAvatarsEnabled: Type.Boolean(),
  collaborativeSelectionEnabled: Type.Boolean(),
  enabledClippingPlanes: Type.Array(Type.Unknown()),
  clippingPlanesEnabled: Type.Boolean(),
  enabledQuotations: Type.Array(Type.Unknown()),
  quotationsEnabled: Type.Boolean(),
  readPermissions: AccessList,
  writePermissions: AccessList,
}
const renderMode = Type.String({ description: 'e.g. "phong"' })
const revision = Type.Integer({ description: 'revision, incremented on every update' })

/** The configuration record as the HTTP API answers it (with `renderMode`). */
export const ConfigurationRecord = Type.Object(
  { ...configurationFields, renderMode, __v: revision },
  { additionalProperties: false, $id: 'Configuration', title: 'Configuration' },
)

/** `data` of configuration_created and inside configuration_updated: the spec shows no `renderMode`. */
export const ConfigurationEventRecord = Type.Object(
  { ...configurationFields, __v: revision },
  { additionalProperties: false, title: 'ConfigurationInEvent' },
)

/** `data` of configuration_removed: the spec shows `renderMode` here. */
export const ConfigurationRemovedRecord = Type.Object(
  { ...configurationFields, renderMode, __v: revision },
  { additionalProperties: false, title: 'ConfigurationRemoved' },
)

export const NodeIdToAttributes = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), {
  description: 'node ID → attribute name → value (null: the attribute was removed)',
})

export const AttributeUpdatedData = Type.Object(
  {
    user: Type.Object({ email: Email }, { additionalProperties: false }),
    nodeIdToAttributes: NodeIdToAttributes,
  },
  { additionalProperties: false },
)

const oldNew = <T extends TSchema>(record: T) =>
  Type.Object({ old: record, new: record }, { additionalProperties: false })

/** The `data` of each event. */
export const EVENT_DATA = {
  attribute_updated: AttributeUpdatedData,
  file_uploaded: FileRecord,
  file_optimized: FileRecord,
  // Beyond the spec; the file record with `state: "error"` and the reason in `error`.
  file_optimization_failed: FileRecord,
  annotation_created: AnnotationRecord,
  annotation_updated: oldNew(AnnotationRecordInUpdate),
  annotation_removed: AnnotationRecord,
  configuration_created: ConfigurationEventRecord,
  configuration_updated: oldNew(ConfigurationEventRecord),
  configuration_removed: ConfigurationRemovedRecord,
} as const satisfies Record<EventName, TSchema>

const envelopeFields = {
  file: Type.String({ pattern: ID_PATTERN, description: 'ID of the file the event concerns' }),
  owner: Type.String({ description: 'e-mail of the webhook owner' }),
  runTimestamp: Type.Integer({ description: 'ms Unix timestamp of the trigger' }),
  uuid: Type.String({ format: 'uuid', description: 'ID of this delivery, stable across retries' }),
}

function envelope<E extends EventName>(event: E) {
  return Type.Object(
    {
      file: envelopeFields.file,
      event: Type.Literal(event),
      data: EVENT_DATA[event] as (typeof EVENT_DATA)[E],
      owner: envelopeFields.owner,
      runTimestamp: envelopeFields.runTimestamp,
      uuid: envelopeFields.uuid,
    },
    { additionalProperties: false, title: `${event} payload` },
  )
}

/** The envelope common to every delivery, with `data` left open. */
export const WebhookEnvelope = Type.Object(
  {
    file: envelopeFields.file,
    event: Type.Union(EVENT_NAMES.map((name) => Type.Literal(name))),
    data: Type.Record(Type.String(), Type.Unknown()),
    owner: envelopeFields.owner,
    runTimestamp: envelopeFields.runTimestamp,
    uuid: envelopeFields.uuid,
  },
  { additionalProperties: false, title: 'WebhookEnvelope' },
)

/** The full body of a delivery of each event. */
export const WEBHOOK_PAYLOADS = {
  attribute_updated: envelope('attribute_updated'),
  file_uploaded: envelope('file_uploaded'),
  file_optimized: envelope('file_optimized'),
  file_optimization_failed: envelope('file_optimization_failed'),
  annotation_created: envelope('annotation_created'),
  annotation_updated: envelope('annotation_updated'),
  annotation_removed: envelope('annotation_removed'),
  configuration_created: envelope('configuration_created'),
  configuration_updated: envelope('configuration_updated'),
  configuration_removed: envelope('configuration_removed'),
} as const satisfies Record<EventName, TSchema>

export type AnnotationPermissionsShape = Static<typeof AnnotationPermissions>
export type AnnotationRecordShape = Static<typeof AnnotationRecord>
export type ConfigurationRecordShape = Static<typeof ConfigurationRecord>
export type WebhookPayload<E extends EventName> = Static<(typeof WEBHOOK_PAYLOADS)[E]>
export type EventData<E extends EventName> = Static<(typeof EVENT_DATA)[E]>

// OpenAPI 3.1 `webhooks`: one entry per event, describing the POST a receiver gets. Inline copies
// drop `$id` so that the document never declares one ID twice (components already hold them).
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) if (key !== '$id') out[key] = withoutIds(inner)
  return out
}

export interface OpenApiWebhook {
  post: {
    summary: string
    description: string
    requestBody: { required: true; content: { 'application/json': { schema: Record<string, unknown> } } }
    responses: Record<string, { description: string }>
  }
}

export function openApiWebhooks(): Record<string, OpenApiWebhook> {
  const entries = EVENT_NAMES.map((event): [string, OpenApiWebhook] => [
    event,
    {
      post: {
        summary: `The ${event} event`,
        description:
          'Sent with `x-service-token` (bcrypt of the secretToken) and Standard Webhooks signature headers. ' +
          'Answer 200 with `Content-Type: application/json` and `{"success": true}`; anything else is retried.',
        requestBody: {
          required: true as const,
          content: {
            'application/json': { schema: withoutIds(WEBHOOK_PAYLOADS[event]) as Record<string, unknown> },
          },
        },
        responses: { 200: { description: 'Received: `{"success": true}` as application/json' } },
      },
    },
  ])
  return Object.fromEntries(entries)
}

/** Columns of their own; everything else of the record lives in the `settings` JSON document. */
type ColumnFields =
  | '_id'
  | 'file'
  | 'name'
  | 'author'
  | 'lastModificationAuthor'
  | 'lockedBy'
  | 'lastActivationDate'
  | 'date'
  | 'lastModificationDate'
  | 'readPermissions'
  | 'writePermissions'
  | '__v'
/** The record's viewer-state fields (everything but identity, authorship, dates and access lists). */
export type ConfigurationSettings = Omit<ConfigurationRecordShape, ColumnFields>

/** Defaults of a new configuration: the viewer's plain perspective view, optional features off. */
export function defaultConfigurationSettings(newId: () => string): ConfigurationSettings {
  return {
    disableCamera: false,
    cameraPosition: [],
    cameraType: null,
    environmentFile: null,
    environmentBrightness: 1,
    environmentOrientation: 0,
    layersEnabled: false,
    enabledLayers: [],
    behaviorsEnabled: false,
    enabledBehaviors: [],
    enabledEffects: [],
    transparencyEffectParameters: { alphaCoefficient: 0.5, _id: newId() },
    explodedViewDistance: null,
    explodedViewEnabled: false,
    environmentEnabled: false,
    skyboxEnabled: false,
    iblEnabled: false,
    upVector: 'Y+',
    zNear: 0.1,
    cameraFoVIndex: 0,
    activeOnStart: false,
    modifiersEnabled: false,
    modifiers: [],
    sceneEnabled: true,
    rememberSelection: false,
    sceneTree: 0,
    selectedNodes: [],
    autosaveCameraPosition: false,
    collaborationEnabled: false,
    collaborativeAvatarsEnabled: false,
    collaborativeSelectionEnabled: false,
    enabledClippingPlanes: [],
    clippingPlanesEnabled: false,
    enabledQuotations: [],
    quotationsEnabled: false,
    renderMode: 'phong',
  }
}
