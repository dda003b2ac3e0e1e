import { Type } from 'typebox'

const isoDate = { format: 'date-time' }

/** The spec's file record, field for field. */
export const FileRecord = Type.Object(
  {
    _id: Type.String({ pattern: '^[0-9a-f]{24}$' }),
    parent: Type.String({ description: 'directory path' }),
    key: Type.String({ description: 'path of the file' }),
    name: Type.String(),
    owner: Type.String({ description: 'e-mail of the owner' }),
    user: Type.String({ description: 'e-mail of the uploader of this revision' }),
    roles: Type.Array(Type.Unknown()),
    isLink: Type.Boolean(),
    shareToken: Type.String(),
    size: Type.Integer(),
    created: Type.String(isoDate),
    updated: Type.String(isoDate),
    revisionDate: Type.String(isoDate),
    attributes: Type.Record(Type.String(), Type.Unknown()),
    allowLivePublicMeetings: Type.Boolean(),
    state: Type.String({ description: 'queued, converting, ready or error' }),
    error: Type.String(),
    sceneTreeNames: Type.Array(Type.String()),
    sceneTreeRoots: Type.Array(Type.String()),
    favoritedBy: Type.Array(Type.Unknown()),
    type: Type.String(),
    bucket: Type.String(),
    __v: Type.Integer(),
  },
  { $id: 'FileRecord', title: 'FileRecord' },
)

export const DirectoryListing = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(Type.Ref('FileRecord')),
})

export const DirectoryParams = Type.Object({ '*': Type.String({ maxLength: 1024 }) })
