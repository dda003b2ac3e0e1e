// The API's shapes of a file row: the specification's record and the view (record + conversion
// progress and thumbnail). Shared by the service, listings and the stored view texts (view-json.ts).
import type { Static } from 'typebox'
import { publicBucketName } from '../../platform/blobs/index.ts'
import type * as repo from './repository.ts'
import type { FileRecord } from './schemas.ts'

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

/** The API's answer for a file: the spec's record plus the conversion's progress and thumbnail. */
export type FileViewShape = FileRecordShape & {
  progress: number
  thumbnailUrl: string | null
  revisionNumber: number
}

export function toFileView(row: repo.FileRowWithEmails): FileViewShape {
  const thumbnailUrl = row.state === 'ready' && row.thumbnail_key ? `/file/${row.id}/thumbnail` : null
  return { ...toFileRecord(row), progress: row.progress, thumbnailUrl, revisionNumber: row.revision_number }
}
