// Reading discussions: a thread's replies page by page, oldest first; the per-file summary of the
// threads (counts and the caller's unread replies); moving the caller's read marker.
import type { AnnotationReplyShape } from '../../contract/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { checkPageLimit, keyCursor, pageOfRows, pageStart } from '../../platform/paging.ts'
import type { ItemCaller } from '../file-items/index.ts'
import { requireFileAccess } from '../files/index.ts'
import { callerDiscussionRights } from './access.ts'
import * as repo from './repository.ts'
import { loadDiscussion, lockAnnotation, requireRead, toReply } from './service.ts'

/** A thread as one caller sees it. */
export interface DiscussionState {
  annotation: string
  replies: number
  lastReplyAt: number | null
  /** Replies by others past the caller's read marker. */
  unread: number
  /** The sequence number of the last reply the caller marked read (0: none). */
  readUpTo: number
}

/** A page ends at a reply's sequence number: the cursor is its base64url. */
const replyCursor = keyCursor((key) => /^[1-9][0-9]{0,9}$/.test(key))

export async function listReplies(
  ctx: AppContext,
  caller: ItemCaller,
  annotationId: string,
  paging: { limit?: number; cursor?: string },
): Promise<{ replies: AnnotationReplyShape[]; nextCursor: string | null }> {
  const db = ctx.db.kysely
  const max = ctx.config.replyPageMaxItems
  const limit = paging.limit === undefined ? max : checkPageLimit(paging.limit, max)
  const after = Number(pageStart(replyCursor, paging.cursor) ?? 0)
  const { rights } = await loadDiscussion(db, caller, annotationId)
  requireRead(rights)
  const rows = await repo.repliesAfter(db, annotationId, after, limit + 1)
  const page = pageOfRows(rows, limit, replyCursor, (row) => String(row.seq))
  return { replies: page.rows.map(toReply), nextCursor: page.nextCursor }
}

/**
 * Marks the thread read up to the reply with sequence number `upTo` (default: the newest); the
 * marker never moves back. Answers the thread as the caller now sees it.
 */
export async function markRead(
  ctx: AppContext,
  caller: ItemCaller,
  annotationId: string,
  upTo?: number,
): Promise<DiscussionState> {
  // Under the annotation's lock, as replies are: an annotation deleted meanwhile answers 404 (its
  // marker could not be written: the foreign key), never a 500.
  return ctx.db.kysely.transaction().execute(async (db) => {
    await lockAnnotation(ctx, db, annotationId)
    const { rights } = await loadDiscussion(db, caller, annotationId)
    requireRead(rights)
    const counts = await repo.findDiscussion(db, annotationId)
    const last = counts?.last_seq ?? 0
    const seq = Math.min(upTo ?? last, last)
    if (seq > 0) await repo.markRead(db, annotationId, caller.accountId, seq, Date.now())
    const marker = await repo.readMarker(db, annotationId, caller.accountId)
    return {
      annotation: annotationId,
      replies: counts?.replies ?? 0,
      lastReplyAt: counts?.last_reply_at ?? null,
      unread: await repo.unreadInThread(db, annotationId, caller.accountId, marker),
      readUpTo: marker,
    }
  })
}

/**
 * The threads of a file's annotations that hold a reply and that the caller may read, oldest
 * annotation first: at most TESSERA_FILE_MAX_ANNOTATIONS of them, small rows, so not paged.
 */
export async function discussionsOfFile(
  ctx: AppContext,
  caller: ItemCaller,
  fileId: string,
): Promise<DiscussionState[]> {
  const db = ctx.db.kysely
  const access = await requireFileAccess(db, caller.accountId, fileId, 'read')
  const [threads, unread, markers] = await Promise.all([
    repo.discussionsOfFile(db, fileId),
    repo.unreadOfFile(db, fileId, caller.accountId),
    repo.markersOfFile(db, fileId, caller.accountId),
  ])
  return threads
    .filter((thread) => callerDiscussionRights(thread, caller, access.role).read)
    .map((thread) => ({
      annotation: thread.id,
      replies: thread.replies,
      lastReplyAt: thread.last_reply_at,
      // A link's guest keeps no read marker: nothing is unread for them.
      unread: access.role === 'link' ? 0 : (unread.get(thread.id) ?? 0),
      readUpTo: markers.get(thread.id) ?? 0,
    }))
}
