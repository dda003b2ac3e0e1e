// Shipped: never edit (see index.ts). The discussions of annotations (modules/discussions): the
// replies, each thread's counts, and each account's read marker. Every row goes with its annotation
// (and so with its file) through ON DELETE CASCADE: deleting either leaves nothing behind.
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    await createDiscussions(db)
    await createReplies(db)
    await createReads(db)
  },
}

async function createDiscussions(db: AnyDb): Promise<void> {
  // One row per annotation that ever had a reply: the running count and the last sequence number
  // given (never reused, so a read marker stays right after a delete).
  await db.schema
    .createTable('annotation_discussions')
    .addColumn('annotation_id', 'text', (c) =>
      c.primaryKey().references('annotations.id').onDelete('cascade'),
    )
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('replies', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_seq', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_reply_at', 'bigint')
    .execute()
  await db.schema
    .createIndex('annotation_discussions_file_idx')
    .on('annotation_discussions')
    .columns(['file_id', 'annotation_id'])
    .execute()
}

async function createReplies(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('annotation_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('annotation_id', 'text', (c) => c.notNull().references('annotations.id').onDelete('cascade'))
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('edited_at', 'bigint')
    .execute()
  // The thread in order (paging), and unread counts per file.
  await db.schema
    .createIndex('annotation_replies_thread_idx')
    .on('annotation_replies')
    .columns(['annotation_id', 'seq'])
    .unique()
    .execute()
  await db.schema
    .createIndex('annotation_replies_file_idx')
    .on('annotation_replies')
    .columns(['file_id', 'annotation_id', 'seq'])
    .execute()
}

async function createReads(db: AnyDb): Promise<void> {
  // How far an account has read a thread: the sequence number of the last reply it marked read.
  await db.schema
    .createTable('annotation_reads')
    .addColumn('annotation_id', 'text', (c) => c.notNull().references('annotations.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('read_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('annotation_reads_pk', ['annotation_id', 'account_id'])
    .execute()
}
