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
    revisionNumber: Type.Integer({
      minimum: 1,
      description:
        'the current revision’s number: 1 for the first upload, +1 for each new revision, nothing else ' +
        'moves it (unlike `__v`); as in GET /file/{id}/revisions',
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

/** One revision of a file in its history (GET /file/:id/revisions). */
export const FileRevision = Type.Object(
  {
    __v: Type.Integer({
      minimum: 0,
      description: 'the file’s `__v` while this revision was current; names it in the download route',
    }),
    revisionNumber: Type.Integer({
      minimum: 1,
      description:
        'counts uploads: 1 for the file’s first, +1 for each new revision (a share moves `__v`, not this)',
    }),
    revisionDate: Type.String({ format: 'date-time', description: 'when this revision was uploaded' }),
    size: Type.Integer({ minimum: 0, description: 'bytes of the original' }),
    sha256: Type.String({ description: 'hex sha256 of the original (the download’s ETag)' }),
    name: Type.String(),
    uploadedBy: Type.String({ description: 'e-mail of the account that uploaded this revision' }),
    current: Type.Boolean({ description: 'true for the file’s current revision (the first entry)' }),
  },
  { $id: 'FileRevision', title: 'FileRevision' },
)

export const RevisionList = Type.Object({
  success: Type.Literal(true),
  revisions: Type.Array(Type.Ref('FileRevision'), {
    description: 'newest first: the current revision, then the kept earlier ones',
  }),
})

export const RevisionParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  v: Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$', description: 'the revision’s `__v`' }),
})
