// The API's shapes of a file row: the specification's record and the view (record + conversion
// progress and thumbnail + the caller's role and capabilities). Shared by the service, listings and
// the views kept per process (view-cache.ts).
import type { Static } from 'typebox'
import { publicBucketName } from '../../platform/blobs/index.ts'
import type { FileRole } from './access.ts'
import type * as repo from './repository.ts'
import type { FileCapabilities, FileRecord } from './schemas.ts'

export type FileRecordShape = Static<typeof FileRecord>

export function toFileRecord(row: repo.FileRowWithEmails): FileRecordShape {
  return {
    _id: row.id,
    parent: row.parent,
    key: row.key,
    name: row.name,
    owner: row.owner_email,
    user: row.user_email,
    roles: JSON.parse(row.roles) as FileRecordShape['roles'],
    // The record as anyone may see it (event payloads go to every reader): the owner's view adds the
    // link id, a link session's view says isLink (callerFields).
    isLink: false,
    shareToken: '',
    size: row.size,
    created: new Date(row.created_at).toISOString(),
    updated: new Date(row.updated_at).toISOString(),
    revisionDate: new Date(row.revision_date).toISOString(),
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    allowLivePublicMeetings: row.allow_live_public_meetings === 1,
    state: row.state,
    error: row.error,
    sceneTreeNames: JSON.parse(row.scene_tree_names) as string[],
    sceneTreeRoots: JSON.parse(row.scene_tree_roots) as string[],
    favoritedBy: JSON.parse(row.favorited_by) as string[],
    type: row.type,
    bucket: publicBucketName(row.bucket),
    __v: row.version,
  }
}

type FileCapabilitiesShape = Static<typeof FileCapabilities>

/**
 * What each role may do with a file: the same rules access.ts enforces (`write` for owner and
 * editor, `owner` for the rest), stated once for clients.
 */
function capabilitiesOf(role: FileRole): FileCapabilitiesShape {
  const writes = role === 'owner' || role === 'editor'
  const owns = role === 'owner'
  return {
    read: true,
    setAttributes: writes,
    annotate: writes,
    saveViews: writes,
    share: owns,
    uploadRevision: owns,
    delete: owns,
  }
}

/** The fields of a view that depend on who asks (the rest depends on the row only). */
export interface CallerFields {
  role: Exclude<FileRole, 'link'>
  capabilities: FileCapabilitiesShape
  isLink: boolean
  shareToken: string
  /** A guest's view lists no shares: who else the file is shared with is not theirs to know. */
  roles?: FileRecordShape['roles']
  /** Nor who starred it (sharees' e-mails). */
  favoritedBy?: string[]
}

/**
 * `shareToken`: the file's link id (the row's `share_token`), shown to the owner only. A link
 * session reads as a viewer with `isLink: true` (docs/api.md, "Links").
 */
export function callerFields(role: FileRole, shareToken: string): CallerFields {
  if (role === 'link') {
    return {
      role: 'viewer',
      capabilities: capabilitiesOf(role),
      isLink: true,
      shareToken: '',
      roles: [],
      favoritedBy: [],
    }
  }
  return {
    role,
    capabilities: capabilitiesOf(role),
    isLink: false,
    shareToken: role === 'owner' ? shareToken : '',
  }
}

/** The row's part of a view: the spec's record plus the conversion's progress and thumbnail, and the
 * revision's number (uploads counted from 1). */
export type RowViewShape = FileRecordShape & {
  progress: number
  thumbnailUrl: string | null
  revisionNumber: number
}

/** The API's answer for a file: the row's part plus the caller's role and capabilities. */
export type FileViewShape = RowViewShape & CallerFields

export function toRowView(row: repo.FileRowWithEmails): RowViewShape {
  const thumbnailUrl = row.state === 'ready' && row.thumbnail_key ? `/file/${row.id}/thumbnail` : null
  return { ...toFileRecord(row), progress: row.progress, thumbnailUrl, revisionNumber: row.revision_number }
}

export function toFileView(row: repo.FileRowWithEmails, role: FileRole): FileViewShape {
  return { ...toRowView(row), ...callerFields(role, row.share_token) }
}
