// The tables modules/annotations owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).

export interface AnnotationsTable {
  id: string
  file_id: string
  author_id: string
  name: string
  content: string
  type: number
  color: string
  camera_x: number
  camera_y: number
  camera_z: number
  /** JSON arrays. */
  targets: string
  tags: string
  /** JSON arrays of e-mails or "*". */
  read_permissions: string
  write_permissions: string
  /** `_id` of the record's `permissions` object. */
  permissions_id: string
  /** JSON object with the nine permission arrays. */
  permissions: string
  /** Record `date` (ms). */
  created_at: number
  /** Record `lastUpdate` (ms). */
  updated_at: number
  version: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    annotations: AnnotationsTable
  }
}
