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
    isLink: row.is_link === 1,
    shareToken: row.share_token,
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
    favoritedBy: JSON.parse(row.favorited_by) as unknown[],
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
  const writes = role !== 'viewer'
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
  role: FileRole
  capabilities: FileCapabilitiesShape
}

export function callerFields(role: FileRole): CallerFields {
  return { role, capabilities: capabilitiesOf(role) }
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
  return { ...toRowView(row), ...callerFields(role) }
}
