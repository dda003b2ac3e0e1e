// The records of a file the caller sees, as the listings show them: its annotations, saved views, and
// the replies of the discussions they may read (every page: each listing is bounded per file).
import type {
  AnnotationRecordShape,
  AnnotationReplyShape,
  ConfigurationRecordShape,
} from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { annotations } from '../annotations/index.ts'
import { configurations } from '../configurations/index.ts'
import { discussionsOfFile, listReplies } from '../discussions/index.ts'
import type { ItemCaller } from '../file-items/index.ts'

async function allPages<T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor: string | null }>) {
  const out: T[] = []
  let cursor: string | undefined
  do {
    const next = await page(cursor)
    out.push(...next.items)
    cursor = next.nextCursor ?? undefined
  } while (cursor !== undefined)
  return out
}

export interface VisibleRecords {
  notes: AnnotationRecordShape[]
  views: ConfigurationRecordShape[]
  /** Replies by annotation ID, oldest first. */
  replies: Map<string, AnnotationReplyShape[]>
}

export async function visibleRecords(
  ctx: AppContext,
  caller: ItemCaller,
  fileId: string,
): Promise<VisibleRecords> {
  const notes = await allPages((cursor) => annotations.list(ctx, caller, fileId, { cursor }))
  const views = await allPages((cursor) => configurations.list(ctx, caller, fileId, { cursor }))
  const replies = new Map<string, AnnotationReplyShape[]>()
  for (const thread of await discussionsOfFile(ctx, caller, fileId)) {
    const page = async (cursor?: string) => {
      const found = await listReplies(ctx, caller, thread.annotation, { cursor })
      return { items: found.replies, nextCursor: found.nextCursor }
    }
    replies.set(thread.annotation, await allPages(page))
  }
  return { notes, views, replies }
}
