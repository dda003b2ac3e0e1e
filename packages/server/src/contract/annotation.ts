// The annotation record: `data` of the annotation events and the annotations API's answers.
import { type Static, type TSchema, Type } from 'typebox'
import { AccessList, Email, Millis, RecordId, Revision } from './primitives.ts'

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

const AnnotationPermissions = Type.Object(
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
      __v: Revision,
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

export type AnnotationPermissionsShape = Static<typeof AnnotationPermissions>
export type AnnotationRecordShape = Static<typeof AnnotationRecord>
