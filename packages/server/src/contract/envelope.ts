// The webhook payload contract: the envelope and the `data` of every event, field for field and type
// for type as the spec's tables show them (quirks included, for compatibility with receivers written
// against the original service). The typed SDK imports the contract and validates deliveries with it,
// so the contract depends only on typebox, never on the server (db, Fastify).
import { type Static, type TSchema, Type } from 'typebox'
import { AnnotationRecord, AnnotationRecordInUpdate } from './annotation.ts'
import { AttributeUpdatedData } from './attributes.ts'
import { ConfigurationEventRecord, ConfigurationRemovedRecord } from './configuration.ts'
import { AnnotationDiscussionUpdatedData } from './discussion.ts'
import { EVENT_NAMES, type EventName } from './events.ts'
import { FileRecord } from './file-record.ts'
import { ID_PATTERN } from './ids.ts'

const oldNew = <T extends TSchema>(record: T) =>
  Type.Object({ old: record, new: record }, { additionalProperties: false })

/** The `data` of each event. */
export const EVENT_DATA = {
  attribute_updated: AttributeUpdatedData,
  file_uploaded: FileRecord,
  file_optimized: FileRecord,
  // Beyond the spec; the file record with `state: "error"` and the reason in `error`.
  file_optimization_failed: FileRecord,
  // Beyond the spec: the file record after the share or revoke (its `roles` say who has which).
  file_shared: FileRecord,
  file_unshared: FileRecord,
  annotation_created: AnnotationRecord,
  annotation_updated: oldNew(AnnotationRecordInUpdate),
  annotation_removed: AnnotationRecord,
  // Beyond the spec: the reply and the thread's counts after the change (no annotation revision).
  annotation_discussion_updated: AnnotationDiscussionUpdatedData,
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
  file_shared: envelope('file_shared'),
  file_unshared: envelope('file_unshared'),
  annotation_created: envelope('annotation_created'),
  annotation_updated: envelope('annotation_updated'),
  annotation_removed: envelope('annotation_removed'),
  annotation_discussion_updated: envelope('annotation_discussion_updated'),
  configuration_created: envelope('configuration_created'),
  configuration_updated: envelope('configuration_updated'),
  configuration_removed: envelope('configuration_removed'),
} as const satisfies Record<EventName, TSchema>

export type EventData<E extends EventName> = Static<(typeof EVENT_DATA)[E]>
