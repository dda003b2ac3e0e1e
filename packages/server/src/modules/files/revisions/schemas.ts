// The revision history's shapes (revisions/routes.ts).
import { Type } from 'typebox'

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
