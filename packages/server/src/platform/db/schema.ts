// Table types shared by both SQL dialects. Conventions that keep one schema for SQLite and
// PostgreSQL: timestamps are integer milliseconds (bigint), booleans are integers 0/1, and JSON
// values are stored as text.
export interface AccountsTable {
  id: string
  email: string
  username: string
  password_hash: string
  is_admin: number
  disabled: number
  created_at: number
  updated_at: number
}

export interface SessionsTable {
  id: string
  account_id: string
  created_at: number
  /** Last keep-alive + session TTL. */
  expires_at: number
  /** Set by DELETE /account/session: the moment the deletion takes effect. */
  ends_at: number | null
  /** Set when a newer session of the same account took over (effective at once). */
  superseded_at: number | null
}

export interface LoginFailuresTable {
  key: string
  window_start: number
  count: number
}

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
  state: string
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
  favorited_by: string
  type: string
  created_at: number
  updated_at: number
  revision_date: number
  version: number
}

export interface Database {
  accounts: AccountsTable
  sessions: SessionsTable
  login_failures: LoginFailuresTable
  files: FilesTable
}
