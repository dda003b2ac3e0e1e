// The BCF routes' schemas: the params, the import's answer, and the zip bodies as OpenAPI shows them.
import { Type } from 'typebox'
import { ID_PATTERN } from '../../platform/ids.ts'

export const BcfParams = Type.Object({ id: Type.String({ pattern: ID_PATTERN }) })

export const BCF_TYPES = ['application/zip', 'application/octet-stream']

export const zipContent = {
  content: Object.fromEntries(BCF_TYPES.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
}

const Ids = Type.Array(Type.String(), { maxItems: 100_000 })

export const ImportAnswer = Type.Object(
  {
    success: Type.Literal(true),
    version: Type.Union([Type.Literal('2.1'), Type.Literal('3.0')], { description: 'the BCF version read' }),
    topics: Type.Integer({ minimum: 0, description: 'topics in the file' }),
    annotations: Ids,
    configurations: Ids,
    comments: Type.Integer({ minimum: 0, description: 'replies added to discussions' }),
    unchanged: Type.Integer({ minimum: 0, description: 'topics the file held already, with nothing new' }),
    unknownComponents: Type.Array(Type.String(), {
      maxItems: 1000,
      description: 'IFC GlobalIds (or node IDs) the viewpoints name that this model does not have',
    }),
    notes: Type.Array(Type.String(), { description: 'what was left out or cut, and why' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        success: true,
        version: '2.1',
        topics: 2,
        annotations: ['674a1f3c9b1e2d3f4a5b6c7d'],
        configurations: ['674a1f3c9b1e2d3f4a5b6c7e'],
        comments: 3,
        unchanged: 0,
        unknownComponents: ['3Zzzzzzzzzzzzzzzzzzzz1'],
        notes: [],
      },
    ],
  },
)
