// The scene attributes: `data` of attribute_updated and the scene API's attribute maps.
import { Type } from 'typebox'
import { Email } from './primitives.ts'

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
