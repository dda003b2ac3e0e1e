import { Type } from 'typebox'
import { ID_PATTERN } from '../../platform/ids.ts'
import { AccessListInput } from '../file-items/index.ts'

const Id = Type.String({ pattern: ID_PATTERN })
const Int32 = { minimum: -2147483648, maximum: 2147483647 }

const PermissionsInput = Type.Object(
  {
    _id: Type.Optional(Type.String({ maxLength: 64, description: 'assigned by the server; ignored' })),
    writeTargets: Type.Optional(AccessListInput),
    readTargets: Type.Optional(AccessListInput),
    delete: Type.Optional(AccessListInput),
    writeTitle: Type.Optional(AccessListInput),
    readTitle: Type.Optional(AccessListInput),
    writeDiscussion: Type.Optional(AccessListInput),
    readDiscussion: Type.Optional(AccessListInput),
    writeDescription: Type.Optional(AccessListInput),
    readDescription: Type.Optional(AccessListInput),
  },
  { additionalProperties: false, description: 'arrays given replace the stored ones; others stay' },
)

/** The fields a client sets, on create and update. */
const editable = {
  name: Type.String({ maxLength: 1000, description: 'title' }),
  content: Type.String({ maxLength: 100_000, description: 'description text' }),
  type: Type.Integer(Int32),
  color: Type.String({ minLength: 1, maxLength: 64, description: 'CSS-style color' }),
  cameraX: Type.Number(),
  cameraY: Type.Number(),
  cameraZ: Type.Number(),
  targets: Type.Array(Type.Unknown(), { maxItems: 10_000 }),
  tags: Type.Array(Type.String({ maxLength: 256 }), { maxItems: 1000 }),
  readPermissions: AccessListInput,
  writePermissions: AccessListInput,
  permissions: PermissionsInput,
}

// Every editable field, optional: an update changes what it gives; a create defaults the rest.
const optional = Type.Partial(Type.Object(editable)).properties

export const CreateAnnotationBody = Type.Object(
  { file: Id, ...optional, name: editable.name },
  { additionalProperties: false },
)

export const UpdateAnnotationBody = Type.Object(
  {
    _id: Id,
    __v: Type.Optional(Type.Integer({ description: 'if given, must be the current revision (else 409)' })),
    ...optional,
  },
  { additionalProperties: false },
)
