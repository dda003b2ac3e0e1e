// The tables modules/discussions owns (docs/architecture.md, "Who owns which table"): their row types,
// added to the kernel's one Kysely `Database` type by declaration merging. The conventions of
// platform/db/schema.ts hold (ms timestamps, JSON as text). Every row goes with its annotation
// (ON DELETE CASCADE, migration 0028).

/** One row per annotation that ever had a reply. */
export interface AnnotationDiscussionsTable {
  annotation_id: string
  file_id: string
  /** Replies in the thread now. */
  replies: number
  /** The last sequence number given to a reply (never reused). */
  last_seq: number
  /** ms of the newest reply still there; null when none is. */
  last_reply_at: number | null
}

export interface AnnotationRepliesTable {
  id: string
  annotation_id: string
  file_id: string
  /** Position in the thread: 1, 2, … (unique per annotation). */
  seq: number
  author_id: string
  text: string
  created_at: number
  edited_at: number | null
}

/** How far an account has read a thread. */
export interface AnnotationReadsTable {
  annotation_id: string
  account_id: string
  /** The sequence number of the last reply marked read. */
  seq: number
  read_at: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    annotation_discussions: AnnotationDiscussionsTable
    annotation_replies: AnnotationRepliesTable
    annotation_reads: AnnotationReadsTable
  }
}
