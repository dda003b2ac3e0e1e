// What live sessions share on a file follows its start configuration (docs/live.md "Settings"): the
// configuration marked `activeOnStart` (the latest modified of several). Read here, where the table
// lives; live sessions ask through index.ts.
import type { Executor } from '../../platform/db/index.ts'

export interface LiveSharing {
  avatars: boolean
  selection: boolean
}

/** A file's configurations are few (TESSERA_CONFIGURATIONS_PER_FILE); their settings are read whole. */
export async function liveSharingOf(db: Executor, fileId: string): Promise<LiveSharing> {
  const rows = await db
    .selectFrom('configurations')
    .select(['settings', 'last_modification_date', 'created_at'])
    .where('file_id', '=', fileId)
    .execute()
  let start: { at: number; settings: Record<string, unknown> } | null = null
  for (const row of rows) {
    const settings = JSON.parse(row.settings) as Record<string, unknown>
    if (settings.activeOnStart !== true) continue
    const at = row.last_modification_date ?? row.created_at
    if (start === null || at > start.at) start = { at, settings }
  }
  if (start === null) return { avatars: true, selection: true }
  return {
    avatars: start.settings.collaborativeAvatarsEnabled === true,
    selection: start.settings.collaborativeSelectionEnabled === true,
  }
}
