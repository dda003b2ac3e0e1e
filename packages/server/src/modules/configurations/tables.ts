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
  /** The record's `lockedBy`: the e-mail of the lock's holder when they took it; null: not locked. */
  locked_by: string | null
  /** The account holding the lock (migration 0029); null when not locked. */
  locked_by_id: string | null
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

/** A saved view's thumbnail (migration 0031, thumbnails.ts): at most one per configuration. */
export interface ConfigurationThumbnailsTable {
  configuration_id: string
  content_type: string
  width: number
  height: number
  size: number
  sha256: string
  bytes: Buffer
  updated_at: number
  updated_by: string
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    configuration_thumbnails: ConfigurationThumbnailsTable
  }
}
