// A model's own properties (docs/api.md, "Model properties"): what the conversion read from the
// file about each node, read-only, and the conditions a search of them takes.
import { Type } from 'typebox'

const PropertyValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()])

export const NodeIdToProperties = Type.Record(
  Type.String(),
  Type.Record(Type.String(), Type.Record(Type.String(), PropertyValue)),
  {
    description:
      'node ID → group (`IFC`, a property or quantity set such as `Pset_WallCommon`, `Materials`, ' +
      '`Classification`, `extras`, `Mesh`, `STEP`) → property name → value',
    examples: [
      {
        '5b2c0e7d9a1f3e44': {
          IFC: { class: 'IfcWall', GlobalId: '3vB2YO$MX4xv5uCqZZG05x', Name: 'Wall 1' },
          Pset_WallCommon: { FireRating: 'REI60', IsExternal: true },
          Qto_WallBaseQuantities: { Length: 5 },
        },
      },
    ],
  },
)

export const PropertyUnits = Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
  description:
    'group → property name → unit (`m`, `m²`, `m³`, `kg`, `s`, `rad`, `°`, …) of the values in this ' +
    'answer that have one; lengths, areas, volumes and masses are converted to SI units',
  examples: [{ Qto_WallBaseQuantities: { Length: 'm' } }],
})

const PROPERTY_OPS = ['eq', 'ne', 'contains', 'lt', 'lte', 'gt', 'gte', 'exists'] as const

const Op = Type.Union(
  PROPERTY_OPS.map((op) => Type.Literal(op)),
  {
    description:
      '`eq`/`ne`: equal or not, text compared without regard to case; `contains`: text holds `value` ' +
      '(without regard to case); `lt`/`lte`/`gt`/`gte`: numbers; `exists`: the property is there (no value)',
  },
)

const ConditionValue = Type.Optional(
  Type.Union([Type.String({ maxLength: 256 }), Type.Number(), Type.Boolean()], {
    description: 'what to compare with; a number for lt/lte/gt/gte; left out for exists',
  }),
)

const PropertyCondition = Type.Object(
  {
    group: Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'property group, e.g. `Pset_WallCommon`',
    }),
    name: Type.String({ minLength: 1, maxLength: 128, description: 'property name, e.g. `FireRating`' }),
    op: Op,
    value: ConditionValue,
  },
  { additionalProperties: false, description: 'a condition on one property of the node' },
)

const NodeNameCondition = Type.Object(
  {
    node: Type.Literal('name', { description: "the node's name in the scene tree" }),
    op: Type.Union([Type.Literal('eq'), Type.Literal('ne'), Type.Literal('contains')]),
    value: Type.String({ maxLength: 256 }),
  },
  { additionalProperties: false, description: "a condition on the node's name" },
)

export const SearchCondition = Type.Union([PropertyCondition, NodeNameCondition])
