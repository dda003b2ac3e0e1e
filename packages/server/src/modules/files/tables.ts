// The tables modules/files owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).
import type { Generated } from 'kysely'
import type { FileState } from '../../contract/index.ts'

export interface FilesTable {
  id: string
  owner_id: string
  /** Account that uploaded the current revision. */
  user_id: string
  parent: string
  key: string
  name: string
  size: number
  sha256: string
  state: FileState
  error: string
  progress: number
  bucket: string
  /** Where the original bytes live inside the bucket. */
  blob_key: string
  share_token: string
  is_link: number
  allow_live_public_meetings: number
  roles: string
  attributes: string
  scene_tree_names: string
  scene_tree_roots: string
  /** JSON: the e-mails of the accounts that starred the file (file_favourites), sorted. */
  favorited_by: string
  type: string
  created_at: number
  updated_at: number
  revision_date: number
  /** The API's `__v`: moves with every change of the record (a revision, a share). */
  version: number
  /**
   * The revision number (migration 0021): +1 for each new revision and for nothing else; conversion
   * jobs name the revision they convert by it.
   */
  revision: Generated<number>
  /**
   * The revision number people see (migration 0026): 1 for the first upload, +1 for each new
   * revision; `file_revisions.revision_number` keeps it for the earlier ones.
   */
  revision_number: Generated<number>
  /** The optimized GLB (null until a conversion of this file succeeded). */
  optimized_key: string | null
  optimized_size: number
  optimized_sha256: string
  /**
   * The PNG thumbnail of the optimized model (migration 0012_thumbnails; null until a conversion
   * made one). Generated: defaults in the database, so inserts may leave them out.
   */
  thumbnail_key: Generated<string | null>
  thumbnail_size: Generated<number>
  thumbnail_sha256: Generated<string>
}

export interface FileSharesTable {
  file_id: string
  account_id: string
  /** 'viewer' or 'editor'. */
  role: string
  created_at: number
}

/**
 * An earlier revision of a file (migration 0018_file_revisions); the current one is the `files`
 * row. `version` is the file's `__v` while it was current.
 */
export interface FileRevisionsTable {
  file_id: string
  version: number
  name: string
  size: number
  sha256: string
  /** The revision's original bytes, kept in the store while this row is. */
  blob_key: string
  /** Account that uploaded this revision. */
  uploaded_by: string
  revision_date: number
  /** Its revision number (1 for the file's first upload; migration 0026). */
  revision_number: Generated<number>
  /**
   * Set when the revision was dropped (past TESSERA_FILE_REVISIONS_KEPT, or with its file): no longer
   * listed, its blob is being removed, then the row. A row left so by a crash is finished at start-up.
   */
  pruned_at: number | null
}

/**
 * A star: an account marked a file it may read as a favourite (migration 0029). The file's record
 * shows its stars in `files.favorited_by` (kept in the same transaction, as `roles` is); a star goes
 * with its file and with the share that let its account read the file.
 */
export interface FileFavouritesTable {
  file_id: string
  account_id: string
  created_at: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    files: FilesTable
    file_shares: FileSharesTable
    file_favourites: FileFavouritesTable
    file_revisions: FileRevisionsTable
  }
}
