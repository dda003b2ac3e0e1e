import { Type } from 'typebox'
import { ID_PATTERN } from '../../platform/ids.ts'
import { AccessListInput } from '../file-items/index.ts'

const Id = Type.String({ pattern: ID_PATTERN })
const Int32 = { minimum: -2147483648, maximum: 2147483647 }
const Opaque = Type.Array(Type.Unknown(), { maxItems: 10_000 })

const UP_VECTORS = ['X+', 'X-', 'Y+', 'Y-', 'Z+', 'Z-'] as const

/** The fields of the record a client sets (every one optional: defaults on create, kept on update). */
const fields = {
  name: Type.String({ maxLength: 1000 }),
  lockedBy: Type.Union([Type.Null(), Type.String({ maxLength: 254 })], {
    description:
      'ignored: only POST /file/configuration/lock/ and /unlock/ set it (accepted so that a record read ' +
      'and sent back whole saves)',
  }),
  lastActivationDate: Type.String({ format: 'date-time' }),
  disableCamera: Type.Boolean(),
  cameraPosition: Type.Array(Type.Number(), { maxItems: 64 }),
  cameraType: Type.Union([Type.Null(), Type.String({ maxLength: 64 }), Type.Number()]),
  environmentFile: Type.Union([Type.Null(), Type.String({ maxLength: 2048 })]),
  environmentBrightness: Type.Number(),
  environmentOrientation: Type.Number(),
  layersEnabled: Type.Boolean(),
  enabledLayers: Opaque,
  behaviorsEnabled: Type.Boolean(),
  enabledBehaviors: Type.Array(Id, { maxItems: 10_000 }),
  enabledEffects: Opaque,
  transparencyEffectParameters: Type.Object(
    {
      alphaCoefficient: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      _id: Type.Optional(Type.String({ maxLength: 64, description: 'assigned by the server; ignored' })),
    },
    { additionalProperties: false },
  ),
  explodedViewDistance: Type.Union([Type.Number(), Type.Null()]),
  explodedViewEnabled: Type.Boolean(),
  environmentEnabled: Type.Boolean(),
  skyboxEnabled: Type.Boolean(),
  iblEnabled: Type.Boolean(),
  upVector: Type.Union(UP_VECTORS.map((v) => Type.Literal(v))),
  zNear: Type.Number({ exclusiveMinimum: 0 }),
  cameraFoVIndex: Type.Integer(Int32),
  activeOnStart: Type.Boolean(),
  modifiersEnabled: Type.Boolean(),
  modifiers: Opaque,
  sceneEnabled: Type.Boolean(),
  rememberSelection: Type.Boolean(),
  sceneTree: Type.Integer(Int32),
  selectedNodes: Type.Array(Type.String({ maxLength: 512 }), { maxItems: 100_000 }),
  autosaveCameraPosition: Type.Boolean(),
  collaborationEnabled: Type.Boolean(),
  collaborativeAvatarsEnabled: Type.Boolean(),
  collaborativeSelectionEnabled: Type.Boolean(),
  enabledClippingPlanes: Opaque,
  clippingPlanesEnabled: Type.Boolean(),
  enabledQuotations: Opaque,
  quotationsEnabled: Type.Boolean(),
  readPermissions: AccessListInput,
  writePermissions: AccessListInput,
  renderMode: Type.String({ minLength: 1, maxLength: 64 }),
}

type Fields = typeof fields
type OptionalFields = { [K in keyof Fields]: ReturnType<typeof Type.Optional<Fields[K]>> }
const optionalFields = Object.fromEntries(
  Object.entries(fields).map(([key, schema]) => [key, Type.Optional(schema)]),
) as OptionalFields

export const SaveConfigurationBody = Type.Object(
  {
    _id: Type.Optional(Type.String({ pattern: ID_PATTERN, description: 'given: update it; absent: create' })),
    file: Type.Optional(Type.String({ pattern: ID_PATTERN, description: 'required to create' })),
    __v: Type.Optional(
      Type.Integer({ description: 'on update: if given, must be the current revision (else 409)' }),
    ),
    ...optionalFields,
  },
  { additionalProperties: false },
)

/** The body of the lock and unlock calls: the configuration. */
export const ConfigurationIdBody = Type.Object(
  { _id: Type.String({ pattern: ID_PATTERN, description: 'the configuration' }) },
  { additionalProperties: false },
)
