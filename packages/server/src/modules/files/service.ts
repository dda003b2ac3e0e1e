// Files: records and directory listings (uploads and revisions arrive with the files issue).
import type { Static } from 'typebox'
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import { type FileRowWithEmails, listDirectory } from './repository.ts'
import type { FileRecord } from './schemas.ts'

export type FileRecordShape = Static<typeof FileRecord>

export function toFileRecord(row: FileRowWithEmails): FileRecordShape {
  return {
    _id: row.id,
    parent: row.parent,
    key: row.key,
    name: row.name,
    owner: row.owner_email,
    user: row.user_email,
    roles: JSON.parse(row.roles) as unknown[],
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
    bucket: row.bucket,
    __v: row.version,
  }
}

/** `a/b/` or `/a/b` → `/a/b`; the root is `/`. Refuses `.`/`..` segments and control characters. */
export function normalizeDirectory(raw: string): string {
  const segments = raw.split('/').filter((s) => s !== '')
  for (const segment of segments) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    if (segment === '.' || segment === '..' || /[\u0000-\u001f\u007f]/.test(segment)) {
      throw new AppError('VALIDATION_FAILED', 'The directory path is not valid.')
    }
  }
  return `/${segments.join('/')}`
}

export async function listFiles(
  ctx: AppContext,
  accountId: string,
  directory: string,
): Promise<FileRecordShape[]> {
  const rows = await listDirectory(ctx.db.kysely, accountId, normalizeDirectory(directory))
  return rows.map(toFileRecord)
}
