// SQL of the discussions module: its three tables, and the columns of `annotations` its access
// checks read (the annotation's author, file and lists; the annotations module owns that table).
import { sql } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'

/** What the access checks need of an annotation. */
export interface AnnotationAccessRow {
  id: string
  file_id: string
  author_id: string
  read_permissions: string
  write_permissions: string
  /** JSON object of the nine permission arrays (readDiscussion, writeDiscussion among them). */
  permissions: string
}

export interface ReplyRow {
  id: string
  annotation_id: string
  file_id: string
  seq: number
  author_id: string
  author_email: string
  text: string
  created_at: number
  edited_at: number | null
}

export interface DiscussionRow {
  annotation_id: string
  replies: number
  last_seq: number
  last_reply_at: number | null
}

const ACCESS_COLUMNS = [
  'annotations.id',
  'annotations.file_id',
  'annotations.author_id',
  'annotations.read_permissions',
  'annotations.write_permissions',
  'annotations.permissions',
] as const

export function findAnnotation(db: Executor, id: string): Promise<AnnotationAccessRow | undefined> {
  return db.selectFrom('annotations').select(ACCESS_COLUMNS).where('id', '=', id).executeTakeFirst()
}

/** The file's annotations whose discussion holds a reply, with its counts. */
export function discussionsOfFile(db: Executor, fileId: string) {
  return db
    .selectFrom('annotation_discussions as d')
    .innerJoin('annotations', 'annotations.id', 'd.annotation_id')
    .select(ACCESS_COLUMNS)
    .select(['d.replies', 'd.last_reply_at'])
    .where('d.file_id', '=', fileId)
    .where('d.replies', '>', 0)
    .orderBy('annotations.id')
    .execute()
}

function selectReplies(db: Executor) {
  return db
    .selectFrom('annotation_replies as r')
    .innerJoin('accounts as author', 'author.id', 'r.author_id')
    .select([
      'r.id',
      'r.annotation_id',
      'r.file_id',
      'r.seq',
      'r.author_id',
      'author.email as author_email',
      'r.text',
      'r.created_at',
      'r.edited_at',
    ])
}

export function findReply(db: Executor, id: string): Promise<ReplyRow | undefined> {
  return selectReplies(db).where('r.id', '=', id).executeTakeFirst()
}

/** Up to `limit` replies of the thread in order, after sequence number `afterSeq`. */
export function repliesAfter(db: Executor, annotationId: string, afterSeq: number, limit: number) {
  return selectReplies(db)
    .where('r.annotation_id', '=', annotationId)
    .where('r.seq', '>', afterSeq)
    .orderBy('r.seq')
    .limit(limit)
    .execute()
}

export function findDiscussion(db: Executor, annotationId: string): Promise<DiscussionRow | undefined> {
  return db
    .selectFrom('annotation_discussions')
    .select(['annotation_id', 'replies', 'last_seq', 'last_reply_at'])
    .where('annotation_id', '=', annotationId)
    .executeTakeFirst()
}

/** The thread's counts after a reply was added: one more, the next sequence number given. */
export async function countReplyIn(db: Executor, annotationId: string, fileId: string, now: number) {
  await db
    .insertInto('annotation_discussions')
    .values({ annotation_id: annotationId, file_id: fileId, replies: 1, last_seq: 1, last_reply_at: now })
    .onConflict((oc) =>
      oc.column('annotation_id').doUpdateSet({
        replies: sql`annotation_discussions.replies + 1`,
        last_seq: sql`annotation_discussions.last_seq + 1`,
        last_reply_at: now,
      }),
    )
    .execute()
}

/** The thread's counts after a reply was deleted: the newest remaining reply's date. */
export async function countReplyOut(db: Executor, annotationId: string): Promise<void> {
  const newest = await db
    .selectFrom('annotation_replies')
    .select('created_at')
    .where('annotation_id', '=', annotationId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst()
  await db
    .updateTable('annotation_discussions')
    .set({ replies: sql`replies - 1`, last_reply_at: newest?.created_at ?? null })
    .where('annotation_id', '=', annotationId)
    .execute()
}

export async function insertReply(db: Executor, row: Omit<ReplyRow, 'author_email'>): Promise<void> {
  await db.insertInto('annotation_replies').values(row).execute()
}

export async function editReply(db: Executor, id: string, text: string, now: number): Promise<void> {
  await db.updateTable('annotation_replies').set({ text, edited_at: now }).where('id', '=', id).execute()
}

export async function deleteReply(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('annotation_replies').where('id', '=', id).execute()
}

/** Moves the account's read marker of the thread forward to `seq` (never back). */
export async function markRead(
  db: Executor,
  annotationId: string,
  accountId: string,
  seq: number,
  now: number,
) {
  await db
    .insertInto('annotation_reads')
    .values({ annotation_id: annotationId, account_id: accountId, seq, read_at: now })
    .onConflict((oc) =>
      oc.columns(['annotation_id', 'account_id']).doUpdateSet({
        seq: sql`case when annotation_reads.seq > ${seq} then annotation_reads.seq else ${seq} end`,
        read_at: now,
      }),
    )
    .execute()
}

export async function readMarker(db: Executor, annotationId: string, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('annotation_reads')
    .select('seq')
    .where('annotation_id', '=', annotationId)
    .where('account_id', '=', accountId)
    .executeTakeFirst()
  return row?.seq ?? 0
}

/** Per annotation of the file: the account's read marker and its unread replies (by others). */
export async function unreadOfFile(db: Executor, fileId: string, accountId: string) {
  const rows = await db
    .selectFrom('annotation_replies as r')
    .leftJoin('annotation_reads as m', (join) =>
      join.onRef('m.annotation_id', '=', 'r.annotation_id').on('m.account_id', '=', accountId),
    )
    .select('r.annotation_id')
    .select((eb) => eb.fn.countAll<number | string>().as('unread'))
    .where('r.file_id', '=', fileId)
    .where('r.author_id', '<>', accountId)
    .where(sql<boolean>`r.seq > coalesce(m.seq, 0)`)
    .groupBy('r.annotation_id')
    .execute()
  return new Map(rows.map((row) => [row.annotation_id, Number(row.unread)]))
}

/** The account's read markers of the file's threads. */
export async function markersOfFile(db: Executor, fileId: string, accountId: string) {
  const rows = await db
    .selectFrom('annotation_reads as m')
    .innerJoin('annotation_discussions as d', 'd.annotation_id', 'm.annotation_id')
    .select(['m.annotation_id', 'm.seq'])
    .where('d.file_id', '=', fileId)
    .where('m.account_id', '=', accountId)
    .execute()
  return new Map(rows.map((row) => [row.annotation_id, row.seq]))
}

/** Replies by others in the thread past sequence number `marker`. */
export async function unreadInThread(db: Executor, annotationId: string, accountId: string, marker: number) {
  const row = await db
    .selectFrom('annotation_replies')
    .select((eb) => eb.fn.countAll<number | string>().as('unread'))
    .where('annotation_id', '=', annotationId)
    .where('author_id', '<>', accountId)
    .where('seq', '>', marker)
    .executeTakeFirst()
  return Number(row?.unread ?? 0)
}
