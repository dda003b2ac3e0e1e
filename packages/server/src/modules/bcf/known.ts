// The topics and comments a file holds already, by GUID, so that importing a file's own export, or a
// BCF that came back with new comments, adds only what is new (plan.ts): the GUIDs its records came
// with (bcf_origins) and those they are exported under (guids.ts), for the records the caller sees.
import type { AppContext } from '../../platform/context.ts'
import type { ItemCaller } from '../file-items/index.ts'
import { derivedGuid } from './guids.ts'
import type { Known } from './plan.ts'
import { visibleRecords } from './records.ts'
import { originsOfFile } from './repository.ts'

export async function knownRecords(ctx: AppContext, caller: ItemCaller, fileId: string): Promise<Known> {
  const topics = new Map<string, { annotationId?: string; configurationId?: string }>()
  const comments = new Set<string>()
  for (const row of await originsOfFile(ctx.db.kysely, fileId)) {
    if (row.kind === 'comment') comments.add(row.guid)
    else if (row.kind === 'topic' && row.annotation_id)
      topics.set(row.guid, { annotationId: row.annotation_id })
    else if (row.kind === 'topic' && row.configuration_id)
      topics.set(row.guid, { configurationId: row.configuration_id })
  }
  const { notes, views, replies } = await visibleRecords(ctx, caller, fileId)
  for (const a of notes) topics.set(derivedGuid('topic', a._id), { annotationId: a._id })
  for (const c of views) topics.set(derivedGuid('topic', c._id), { configurationId: c._id })
  for (const reply of [...replies.values()].flat()) comments.add(derivedGuid('comment', reply._id))
  return { topic: (guid) => topics.get(guid), comments }
}
