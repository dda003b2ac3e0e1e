// The tables modules/scene owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).

export interface SceneNodesTable {
  file_id: string
  /** Stable node ID of the file's scene tree (what scene attributes are keyed by). */
  node_id: string
  parent_id: string | null
  name: string
  /** Order among siblings. */
  position: number
}

interface SceneAttributesTable {
  file_id: string
  node_id: string
  /** Attribute name. */
  name: string
  /** JSON text of the attribute value (never JSON null: null removes the attribute). */
  value: string
  updated_by: string
  updated_at: number
}

/** Running totals of a file's scene attributes (kept by every attribute write). */
interface SceneAttributeTotalsTable {
  file_id: string
  attributes: number
  /** UTF-8 bytes of the names plus the JSON text of the values. */
  bytes: number
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    scene_nodes: SceneNodesTable
    scene_attributes: SceneAttributesTable
    scene_attribute_totals: SceneAttributeTotalsTable
  }
}
