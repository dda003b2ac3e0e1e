// The table modules/bcf owns (docs/architecture.md, "Who owns which table"), added to the kernel's
// Kysely `Database` type by declaration merging. Migration 0033.

/** A record of a file that came from BCF, with the GUID and author it came with. */
export interface BcfOriginsTable {
  file_id: string
  guid: string
  kind: 'topic' | 'viewpoint' | 'comment'
  /** Exactly one of the three is set: the record the GUID now names. */
  annotation_id: string | null
  configuration_id: string | null
  reply_id: string | null
  /** The author the BCF named (CreationAuthor, a comment's Author), exported again in its place. */
  author: string | null
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    bcf_origins: BcfOriginsTable
  }
}
