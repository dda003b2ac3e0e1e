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
    truncated: Type.Optional(
      Type.Literal(true, {
        description:
          'present when the write was larger than TESSERA_EVENT_MAX_DATA_BYTES: nodeIdToAttributes holds ' +
          'the values that fit, `omitted` names the rest; read them with GET /scene/attributes?file=…',
      }),
    ),
    omitted: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), {
        description:
          'truncated events only: node ID → names of the written attributes whose values were left out',
      }),
    ),
    omittedNodes: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'truncated events only: written nodes that not even `omitted` could name within the cap',
      }),
    ),
  },
  { additionalProperties: false },
)
