// Field schemas shared by the annotation, configuration and attribute records.
import { Type } from 'typebox'
import { ID_PATTERN } from './ids.ts'

export const RecordId = Type.String({ pattern: ID_PATTERN })
export const Email = Type.String({ description: 'account e-mail' })
export const Millis = Type.Integer({ description: 'millisecond Unix timestamp' })
export const AccessList = Type.Array(Type.String(), {
  description: 'account e-mails, or "*" for everyone with access to the file; empty: no restriction',
})
export const Revision = Type.Integer({ description: 'revision, incremented on every update' })
