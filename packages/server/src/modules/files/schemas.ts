import { Type } from 'typebox'
import { FileRecord } from '../../contract/index.ts'

// The file record is part of the contract (webhook payloads carry it); re-exported for this module.
export { FileRecord, ShareRole } from '../../contract/index.ts'

/** The caller's role on a file: its owner, or the role the owner shared it with them in. */
const CallerRole = Type.Union([Type.Literal('owner'), Type.Literal('editor'), Type.Literal('viewer')], {
  description:
    'the caller’s role on this file: owner (every right), editor (also writes attributes, annotations and ' +
    'saved views), viewer (reads and downloads only)',
})

const may = (description: string) => Type.Boolean({ description })

/**
 * What the caller may do with the file, as the server decides it from their role (access.ts): a
 * client shows or hides its actions by these rather than by restating the rules. The access lists
 * of each annotation or saved view may narrow writes further (see their `permissions`).
 */
export const FileCapabilities = Type.Object(
  {
    read: may(
      'read the record, download the original and the GLB, read scene, annotations and views; star it',
    ),
    setAttributes: may('POST /scene/attributes (owner, editor)'),
    annotate: may('create annotations; change or delete them as their access lists allow (owner, editor)'),
    saveViews: may(
      'create saved views (configurations); change or delete them as their lists allow (owner, editor)',
    ),
    share: may('share the file with accounts and stop sharing it (owner)'),
    uploadRevision: may('upload a new revision: an upload to the same path of the owner’s files (owner)'),
    delete: may('delete the file (owner)'),
  },
  {
    additionalProperties: false,
    description: 'what the caller may do with this file (from `role`); not part of the spec’s record',
  },
)

/**
 * What the API answers for a file: the spec's record plus `progress`, `thumbnailUrl` and the caller's
 * `role` and `capabilities`. Event payloads stay exactly the spec's record (FileRecord).
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
    role: CallerRole,
    capabilities: FileCapabilities,
  },
  { $id: 'FileView', title: 'FileView' },
)

const FileRef = Type.Ref('FileView')

export const FileAnswer = Type.Object({ success: Type.Literal(true), file: FileRef })
export const Ok = Type.Object({ success: Type.Literal(true) })

export const DirectoryParams = Type.Object({ '*': Type.String({ maxLength: 1024 }) })

export const FileParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
