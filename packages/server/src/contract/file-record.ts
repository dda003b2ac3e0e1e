// The spec's file record: `data` of the file events and the core of the files API's answers.
import { type Static, Type } from 'typebox'
import { ID_PATTERN } from './ids.ts'

const isoDate = { format: 'date-time' }

export const ShareRole = Type.Union([Type.Literal('viewer'), Type.Literal('editor')], {
  description: 'viewer: read and download; editor: also write attributes, annotations, configurations',
})

/** A file's conversion state: queued (upload, revision, retry) → converting → ready | error. */
const FileStateSchema = Type.Union(
  [Type.Literal('queued'), Type.Literal('converting'), Type.Literal('ready'), Type.Literal('error')],
  { description: 'queued, converting, ready or error' },
)
export type FileState = Static<typeof FileStateSchema>

/** One entry of a file record's `roles`: an account the owner shared the file with. */
const FileRoleEntry = Type.Object({
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
    isLink: Type.Boolean({
      description:
        'true in the answers to a guest who reads the file through its link (a link session); false for ' +
        'accounts and in every event',
    }),
    shareToken: Type.String({
      description:
        'the id of the file’s link (not its secret token) in the owner’s answers; "" for everyone else, ' +
        'in every event, and when the file has no link',
    }),
    size: Type.Integer({ description: 'bytes of the original upload' }),
    created: Type.String(isoDate),
    updated: Type.String(isoDate),
    revisionDate: Type.String({ ...isoDate, description: 'when the current revision was uploaded' }),
    attributes: Type.Record(Type.String(), Type.Unknown()),
    allowLivePublicMeetings: Type.Boolean(),
    state: FileStateSchema,
    error: Type.String({ description: 'why the conversion failed; "" otherwise' }),
    sceneTreeNames: Type.Array(Type.String()),
    sceneTreeRoots: Type.Array(Type.String()),
    favoritedBy: Type.Array(Type.String(), {
      description:
        'e-mails of the accounts that starred the file (PUT /file/{id}/favourite), sorted; only readers of ' +
        'the file: a revoked share takes its star along. Every reader sees the same list',
    }),
    type: Type.String({ description: 'always "file"' }),
    bucket: Type.String({
      description: 'the blob store holding the bytes: file://blobs or s3://<bucket>, never a path or host',
    }),
    __v: Type.Integer({ description: 'revision, incremented on every update (new upload, share change)' }),
  },
  { $id: 'FileRecord', title: 'FileRecord' },
)
