// The tables modules/sessions owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).

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

declare module '../../platform/db/schema.ts' {
  interface Database {
    sessions: SessionsTable
  }
}
