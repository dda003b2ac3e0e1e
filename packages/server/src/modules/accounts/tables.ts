// The tables modules/accounts owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).
import type { Generated } from 'kysely'

export interface AccountsTable {
  id: string
  email: string
  username: string
  password_hash: string
  is_admin: number
  disabled: number
  created_at: number
  updated_at: number
  /**
   * Epoch ms: auth tokens issued before it are refused (password change or reset, disabling).
   * Generated: 0 (never revoked) by default, so inserts may leave it out.
   */
  tokens_valid_after: Generated<number>
}

interface LoginFailuresTable {
  key: string
  window_start: number
  count: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    accounts: AccountsTable
    login_failures: LoginFailuresTable
  }
}
