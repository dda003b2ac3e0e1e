import { Type } from 'typebox'
import { ID_PATTERN } from '../../platform/ids.ts'
import { NodeIdToAttributes } from '../webhooks/index.ts'

export const MAX_NODES_PER_WRITE = 10_000
export const MAX_ATTRIBUTES_PER_NODE = 256

const FileId = Type.String({ pattern: ID_PATTERN, description: 'file ID' })

const Attributes = Type.Record(Type.String(), Type.Unknown(), {
  propertyNames: { minLength: 1, maxLength: 256 },
  maxProperties: MAX_ATTRIBUTES_PER_NODE,
  description: 'attribute name → value; null removes the attribute',
})

export const WriteAttributesBody = Type.Object(
  {
    file: FileId,
    nodeIdToAttributes: Type.Record(Type.String(), Attributes, {
      propertyNames: { minLength: 1, maxLength: 512 },
      minProperties: 1,
      maxProperties: MAX_NODES_PER_WRITE,
      description: "node ID (of the file's scene tree) → attributes to merge",
    }),
  },
  { additionalProperties: false },
)

export const AttributesQuery = Type.Object({ file: FileId }, { additionalProperties: false })

export const AttributesAnswer = Type.Object({
  success: Type.Literal(true),
  nodeIdToAttributes: NodeIdToAttributes,
})
