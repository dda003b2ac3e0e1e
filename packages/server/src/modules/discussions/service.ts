// The discussion of an annotation: replies (post, edit, delete, list), the thread's counts and each
// account's read marker. Who may do what is access.ts. Every change takes the annotation's lock (the
// one its updates and deletion take, so a reply never outlives its annotation) then its file's, and
// commits with its annotation_discussion_updated event.
import type { AnnotationReplyShape } from '../../contract/index.ts'
import { emitEvent } from '../../events/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource, type Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { newId } from '../../platform/ids.ts'
import type { ItemCaller } from '../file-items/index.ts'
import { type FileAccess, fileReaders, lockFile, requireFileAccess } from '../files/index.ts'
import { callerDiscussionRights, type DiscussionRights, discussionRights } from './access.ts'
import * as repo from './repository.ts'

type Change = 'reply_created' | 'reply_updated' | 'reply_removed'

interface Loaded {
  annotation: repo.AnnotationAccessRow
  access: FileAccess
  rights: DiscussionRights
}

export function toReply(row: repo.ReplyRow): AnnotationReplyShape {
  return {
    _id: row.id,
    annotation: row.annotation_id,
    file: row.file_id,
    author: row.author_email,
    text: row.text,
    seq: row.seq,
    date: row.created_at,
    edited: row.edited_at,
  }
}

/**
 * The annotation, the caller's access to its file and their rights on its discussion: 404 when the
 * file or the annotation is out of their sight (`what` names what was asked for in the message).
 */
export async function loadDiscussion(
  db: Executor,
  caller: ItemCaller,
  annotationId: string,
  what = `annotation ${annotationId}`,
): Promise<Loaded> {
  const notFound = () => new AppError('NOT_FOUND', `No ${what}.`)
  const annotation = await repo.findAnnotation(db, annotationId)
  if (!annotation) throw notFound()
  let access: FileAccess
  try {
    access = await requireFileAccess(db, caller.accountId, annotation.file_id, 'read')
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw notFound()
    throw error
  }
  const rights = callerDiscussionRights(annotation, caller, access.role)
  if (!rights.seesAnnotation) throw notFound()
  return { annotation, access, rights }
}

export function requireRead(rights: DiscussionRights): void {
  if (!rights.read) {
    throw new AppError('FORBIDDEN', "The annotation's readDiscussion permissions do not include you.")
  }
}

function requireWrite(rights: DiscussionRights): void {
  requireRead(rights)
  if (!rights.write) {
    throw new AppError('FORBIDDEN', "The annotation's writeDiscussion permissions do not include you.")
  }
}

/** Takes the annotation's lock, then its file's (the order of file-items/service.ts). */
export async function lockAnnotation(ctx: AppContext, tx: Tx, annotationId: string): Promise<void> {
  await lockResource(ctx.db, tx, `tessera.annotation.${annotationId}`)
  const annotation = await repo.findAnnotation(tx, annotationId)
  if (annotation) await lockFile(ctx.db, tx, annotation.file_id)
}

/** The event of a change, to the file's owner and the readers who may read this discussion. */
async function emitChange(
  ctx: AppContext,
  tx: Tx,
  loaded: Loaded,
  change: Change,
  reply: AnnotationReplyShape,
) {
  const { annotation, access } = loaded
  const readers = await fileReaders(tx, annotation.file_id)
  const audience = readers.filter((reader) => {
    const who = { accountId: reader.account_id, email: reader.email, isOwner: false }
    return discussionRights(annotation, who).read
  })
  const counts = await repo.findDiscussion(tx, annotation.id)
  await emitEvent(ctx, tx, {
    event: 'annotation_discussion_updated',
    fileId: annotation.file_id,
    fileOwnerId: access.file.owner_id,
    readerAccountIds: audience.map((reader) => reader.account_id),
    data: {
      annotation: annotation.id,
      change,
      reply,
      discussion: { replies: counts?.replies ?? 0, lastReplyAt: counts?.last_reply_at ?? null },
    },
  })
}

/** Posts a reply; `inCommit` is called last in the transaction with it (Idempotency-Key). */
export function createReply(
  ctx: AppContext,
  caller: ItemCaller,
  annotationId: string,
  text: string,
  inCommit?: InCommit<AnnotationReplyShape>,
): Promise<AnnotationReplyShape> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const reply = await createReplyIn(ctx, tx, caller, annotationId, text)
    await inCommit?.(tx, reply)
    return reply
  })
}

/**
 * Posts a reply inside the transaction `tx`; `dates` are those of a reply imported from elsewhere
 * (modules/bcf: the date it was written and last edited), else it is written now.
 */
export async function createReplyIn(
  ctx: AppContext,
  tx: Tx,
  caller: ItemCaller,
  annotationId: string,
  text: string,
  dates?: { date: number; edited: number | null },
): Promise<AnnotationReplyShape> {
  await lockAnnotation(ctx, tx, annotationId)
  const loaded = await loadDiscussion(tx, caller, annotationId)
  requireWrite(loaded.rights)
  const max = ctx.config.annotationMaxReplies
  if (((await repo.findDiscussion(tx, annotationId))?.replies ?? 0) >= max) {
    throw new AppError(
      'REPLY_LIMIT_REACHED',
      `The discussion holds ${max} replies (TESSERA_ANNOTATION_MAX_REPLIES); delete one first.`,
    )
  }
  const now = dates?.date ?? Date.now()
  await repo.countReplyIn(tx, annotationId, loaded.annotation.file_id, now)
  const seq = (await repo.findDiscussion(tx, annotationId))?.last_seq
  if (seq === undefined) throw new Error('discussion row vanished after its upsert')
  const id = newId(Date.now())
  const row = { id, annotation_id: annotationId, file_id: loaded.annotation.file_id, seq }
  await repo.insertReply(tx, {
    ...row,
    author_id: caller.accountId,
    text,
    created_at: now,
    edited_at: dates?.edited ?? null,
  })
  const reply = toReply({
    ...row,
    author_id: caller.accountId,
    author_email: caller.email,
    text,
    created_at: now,
    edited_at: dates?.edited ?? null,
  })
  await emitChange(ctx, tx, loaded, 'reply_created', reply)
  return reply
}

/** The reply and its discussion, locked for a change by `caller`. */
async function loadReplyForChange(ctx: AppContext, tx: Tx, caller: ItemCaller, replyId: string) {
  const notFound = () => new AppError('NOT_FOUND', `No reply ${replyId}.`)
  const found = await repo.findReply(tx, replyId)
  if (!found) throw notFound()
  await lockAnnotation(ctx, tx, found.annotation_id)
  const loaded = await loadDiscussion(tx, caller, found.annotation_id, `reply ${replyId}`)
  // Read again under the lock: a delete may have gone first.
  const reply = await repo.findReply(tx, replyId)
  if (!reply) throw notFound()
  if (!loaded.rights.read) throw notFound()
  return { loaded, reply }
}

/** Changes the text of a reply: its author only, while writeDiscussion lets them. */
export function updateReply(ctx: AppContext, caller: ItemCaller, replyId: string, text: string) {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const { loaded, reply } = await loadReplyForChange(ctx, tx, caller, replyId)
    if (reply.author_id !== caller.accountId) {
      throw new AppError('FORBIDDEN', 'Only its author may edit a reply.')
    }
    requireWrite(loaded.rights)
    if (reply.text === text) return toReply(reply)
    const now = Math.max(Date.now(), reply.created_at)
    await repo.editReply(tx, replyId, text, now)
    const edited = toReply({ ...reply, text, edited_at: now })
    await emitChange(ctx, tx, loaded, 'reply_updated', edited)
    return edited
  })
}

/** Deletes a reply: its author (while writeDiscussion lets them) or the file's owner. */
export function deleteReply(ctx: AppContext, caller: ItemCaller, replyId: string) {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const { loaded, reply } = await loadReplyForChange(ctx, tx, caller, replyId)
    if (!loaded.rights.fileOwner) {
      if (reply.author_id !== caller.accountId) {
        throw new AppError('FORBIDDEN', "Only its author and the file's owner may delete a reply.")
      }
      requireWrite(loaded.rights)
    }
    await repo.deleteReply(tx, replyId)
    await repo.countReplyOut(tx, reply.annotation_id)
    const removed = toReply(reply)
    await emitChange(ctx, tx, loaded, 'reply_removed', removed)
    return removed
  })
}
