import { Type } from 'typebox'
import { FileRecord, ShareRole } from '../../contract/index.ts'

// The file record is part of the contract (webhook payloads carry it); re-exported for this module.
export { FileRecord, FileRoleEntry, ShareRole } from '../../contract/index.ts'

/**
 * What the API answers for a file: the spec's record plus `progress` and `thumbnailUrl`. Event
 * payloads stay exactly the spec's record (FileRecord).
 */
export const FileView = Type.Object(
  {
    ...FileRecord.properties,
    progress: Type.Integer({
      minimum: 0,
      maximum: 100,
      description:
        'conversion progress: 0 for a new revision, rising while converting (never lower, also across ' +
        'retries of the same revision), 100 when ready; 0 after a failure',
    }),
    thumbnailUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'path of the PNG thumbnail (`/file/<id>/thumbnail`) once the file is ready; null before',
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
