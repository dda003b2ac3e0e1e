// The table modules/links owns (docs/architecture.md, "Who owns which table"): its row type, added to
// the kernel's one Kysely `Database` type by declaration merging. Conventions of
// platform/db/schema.ts (ms timestamps). A row is never updated (migration 0030): rotating replaces
// it, revoking or deleting the file removes it, so the row-change feed hears every end of a link.

export interface FileLinksTable {
  /** The link's id: rotating gives a new one, so link sessions of the old token end. */
  id: string
  file_id: string
  /** SHA-256 (hex) of the link token; the token itself is answered once and never stored. */
  token_hash: string
  /** argon2id hash of the link's password, or null when it has none. */
  password_hash: string | null
  expires_at: number | null
  created_at: number
  created_by: string
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    file_links: FileLinksTable
  }
}
