import { Type } from 'typebox'
import {
  CursorParam,
  ID_PATTERN,
  LimitParam,
  NextCursor,
  NextCursorUnlessUnpaged,
  NodeIdToAttributes,
  NodeIdToProperties,
  PropertyUnits,
  SearchCondition,
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

const NodeId = Type.String({ minLength: 1, maxLength: NODE_ID_MAX_LENGTH, description: 'node ID' })
/** Nodes one properties read may name. */
const MAX_NODES_PER_READ = 100

export const PropertiesQuery = Type.Object(
  {
    file: FileId,
    node: Type.Optional(
      Type.Union([NodeId, Type.Array(NodeId, { minItems: 1, maxItems: MAX_NODES_PER_READ })], {
        description: `node ID; repeat for several (at most ${MAX_NODES_PER_READ}); without it, every node, paged`,
      }),
    ),
    limit: LimitParam('nodes per page, from 1; default and maximum TESSERA_SCENE_PAGE_MAX_NODES (1000)'),
    cursor: CursorParam(),
  },
  { additionalProperties: false },
)

export const PropertiesAnswer = Type.Object({
  success: Type.Literal(true),
  nodeIdToProperties: NodeIdToProperties,
  units: PropertyUnits,
  nextCursor: NextCursor(
    'pass as `cursor` for the next page; null on the last page and when nodes are named',
  ),
})

/** The conditions of a search, in one file or across files: 1 to 16, every one must hold for a node. */
const Conditions = Type.Array(SearchCondition, {
  minItems: 1,
  maxItems: 16,
  description: 'conditions that must all hold for a node',
})
const PageCursor = Type.Optional(Type.String({ description: 'nextCursor of the previous page' }))

export const SearchBody = Type.Object(
  {
    file: FileId,
    where: Conditions,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'node IDs per page (default 100)' }),
    ),
    cursor: PageCursor,
  },
  {
    additionalProperties: false,
    examples: [
      {
        file: '65f1c0a4b2e8d93a17c4e021',
        where: [
          { group: 'IFC', name: 'class', op: 'eq', value: 'IfcWall' },
          { group: 'Pset_WallCommon', name: 'FireRating', op: 'eq', value: 'REI60' },
        ],
        limit: 100,
      },
    ],
  },
)

export const SearchAnswer = Type.Object({
  success: Type.Literal(true),
  nodes: Type.Array(Type.String(), { description: 'IDs of the matching nodes, in node ID order' }),
  total: Type.Integer({ minimum: 0, description: 'how many nodes match, over every page' }),
  nextCursor: NextCursor(),
})

export const FileSearchBody = Type.Object(
  {
    where: Conditions,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200, description: 'files per page, at most (default 50)' }),
    ),
    cursor: PageCursor,
  },
  {
    additionalProperties: false,
    examples: [
      {
        where: [
          { group: 'IFC', name: 'class', op: 'eq', value: 'IfcDoor' },
          { group: 'Pset_DoorCommon', name: 'FireRating', op: 'exists' },
        ],
        limit: 50,
      },
    ],
  },
)

const FileMatch = Type.Object({
  file: Type.String({ pattern: ID_PATTERN, description: 'file ID' }),
  name: Type.String({ description: "the file's name" }),
  parent: Type.String({ description: "the file's directory in its owner's tree" }),
  role: Type.Union([Type.Literal('owner'), Type.Literal('editor'), Type.Literal('viewer')], {
    description: "the caller's role on the file (a link session reads as a viewer)",
  }),
  matches: Type.Integer({ minimum: 1, description: 'nodes of the file for which every condition holds' }),
})

export const FileSearchAnswer = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(FileMatch, { description: 'files with at least one matching node, in file ID order' }),
  nextCursor: NextCursor(
    'pass as `cursor` to go on; null once every file was looked into. A page may hold fewer ' +
      'files than `limit`, even none, and still have a cursor (see the bounds of a page)',
  ),
})
