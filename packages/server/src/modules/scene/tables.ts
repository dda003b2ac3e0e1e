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

/** The generation of model properties a file answers (properties.ts), with their counts. */
interface ScenePropertySetsTable {
  file_id: string
  /** The conversion run that wrote them: revision × 100 + attempt (properties.ts). */
  generation: number
  nodes: number
  properties: number
}

/** The (group, name, unit) keys of one generation of a file's model properties, numbered per generation. */
interface ScenePropertyKeysTable {
  file_id: string
  generation: number
  key_id: number
  grp: string
  name: string
  unit: string | null
}

/** One property of one node, as the model gave it (read-only; replaced with the scene tree). */
interface ScenePropertiesTable {
  file_id: string
  generation: number
  node_id: string
  key_id: number
  /** JSON text of the value (string, number or boolean). */
  value: string
  /** What searches compare: the value as text, lowercased, at most 256 characters. */
  text: string
  /** The value when it is a number, else null. */
  num: number | null
}

declare module '../../platform/db/schema.ts' {
  interface Database {
    scene_nodes: SceneNodesTable
    scene_attributes: SceneAttributesTable
    scene_attribute_totals: SceneAttributeTotalsTable
    scene_property_sets: ScenePropertySetsTable
    scene_property_keys: ScenePropertyKeysTable
    scene_properties: ScenePropertiesTable
  }
}
