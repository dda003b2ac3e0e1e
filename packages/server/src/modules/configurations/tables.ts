// The tables modules/configurations owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).

export interface ConfigurationsTable {
  id: string
  file_id: string
  author_id: string
  name: string
  last_modification_author_id: string | null
  /** Null until the first update. */
  last_modification_date: number | null
  last_activation_date: number
  locked_by: string | null
  read_permissions: string
  write_permissions: string
  /** JSON object: the viewer-state fields of the record (camera, environment, layers, …). */
  settings: string
  /** Record `date` (ms). */
  created_at: number
  version: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    configurations: ConfigurationsTable
  }
}
