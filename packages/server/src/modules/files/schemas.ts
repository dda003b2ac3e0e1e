import { Type } from 'typebox'
import { ID_PATTERN } from '../../platform/ids.ts'

const isoDate = { format: 'date-time' }

export const ShareRole = Type.Union([Type.Literal('viewer'), Type.Literal('editor')], {
  description: 'viewer: read and download; editor: also write attributes, annotations, configurations',
})

/** One entry of a file record's `roles`: an account the owner shared the file with. */
export const FileRoleEntry = Type.Object({
  email: Type.String({ description: 'e-mail of the account the file is shared with' }),
  role: ShareRole,
})

/** The spec's file record, field for field. */
export const FileRecord = Type.Object(
  {
    _id: Type.String({ pattern: ID_PATTERN }),
    parent: Type.String({ description: 'directory path, `/` for the root' }),
    key: Type.String({ description: 'path of the file: parent + `/` + name' }),
    name: Type.String(),
    owner: Type.String({ description: 'e-mail of the owner' }),
    user: Type.String({ description: 'e-mail of the uploader of this revision' }),
    roles: Type.Array(FileRoleEntry, {
      description: 'the accounts the file is shared with (the owner is not listed), sorted by e-mail',
    }),
    isLink: Type.Boolean(),
    shareToken: Type.String({ description: 'always "": files are shared with accounts, not by link' }),
    size: Type.Integer({ description: 'bytes of the original upload' }),
    created: Type.String(isoDate),
    updated: Type.String(isoDate),
    revisionDate: Type.String({ ...isoDate, description: 'when the current revision was uploaded' }),
    attributes: Type.Record(Type.String(), Type.Unknown()),
    allowLivePublicMeetings: Type.Boolean(),
    state: Type.String({ description: 'queued, converting, ready or error' }),
    error: Type.String({ description: 'why the conversion failed; "" otherwise' }),
    sceneTreeNames: Type.Array(Type.String()),
    sceneTreeRoots: Type.Array(Type.String()),
    favoritedBy: Type.Array(Type.Unknown()),
    type: Type.String({ description: 'always "file"' }),
    bucket: Type.String({ description: 'the blob store holding the bytes' }),
    __v: Type.Integer({ description: 'revision, incremented on every update (new upload, share change)' }),
  },
  { $id: 'FileRecord', title: 'FileRecord' },
)

/**
 * What the API answers for a file: the spec's record plus `progress`. Event payloads stay exactly
 * the spec's record (FileRecord).
 */
export const FileView = Type.Object(
  {
    ...FileRecord.properties,
    progress: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'conversion progress: 0 while queued, rising while converting, 100 when ready',
    }),
  },
  { $id: 'FileView', title: 'FileView' },
)

const FileRef = Type.Ref('FileView')

export const DirectoryListing = Type.Object({
  success: Type.Literal(true),
  files: Type.Array(FileRef),
})

export const FileAnswer = Type.Object({ success: Type.Literal(true), file: FileRef })
export const Ok = Type.Object({ success: Type.Literal(true) })

export const DirectoryParams = Type.Object({ '*': Type.String({ maxLength: 1024 }) })

export const FileParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const ShareBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254 }),
    role: ShareRole,
  },
  { additionalProperties: false },
)

export const ShareParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  email: Type.String({ minLength: 1, maxLength: 254 }),
})

/** Documents the multipart body; the handler reads the stream itself (nothing is buffered). */
export const UploadBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file; its name is the part filename' }),
  parent: Type.Optional(
    Type.String({ description: 'directory to upload into, default `/`; created implicitly' }),
  ),
})
