import { Type } from 'typebox'
import {
  CursorParam,
  ID_PATTERN,
  LimitParam,
  NextCursorUnlessUnpaged,
  NodeIdToAttributes,
} from '../../contract/index.ts'

const MAX_NODES_PER_WRITE = 10_000
const MAX_ATTRIBUTES_PER_NODE = 256
/** Longest node ID an attribute write names, in characters (code points, as the schema counts). */
export const NODE_ID_MAX_LENGTH = 512

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
      propertyNames: { minLength: 1, maxLength: NODE_ID_MAX_LENGTH },
      minProperties: 1,
      maxProperties: MAX_NODES_PER_WRITE,
      description: "node ID (of the file's scene tree) → attributes to merge",
    }),
  },
  { additionalProperties: false },
)

export const AttributesQuery = Type.Object(
  {
    file: FileId,
    limit: LimitParam('nodes per page, from 1; default and maximum TESSERA_SCENE_PAGE_MAX_NODES (1000)'),
    cursor: CursorParam(),
  },
  { additionalProperties: false },
)

export const AttributesAnswer = Type.Object({
  success: Type.Literal(true),
  nodeIdToAttributes: NodeIdToAttributes,
})

export const AttributesPageAnswer = Type.Object({
  success: Type.Literal(true),
  nodeIdToAttributes: NodeIdToAttributes,
  nextCursor: NextCursorUnlessUnpaged('attribute'),
})
