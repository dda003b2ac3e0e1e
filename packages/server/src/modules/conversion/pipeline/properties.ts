// The shape and the bounds of a node's model properties (docs/conversion.md, "Model properties").

export type PropertyScalar = string | number | boolean

/** group → property name → value; `units` (same shape) names the unit of the values that have one. */
export interface NodeProperties {
  groups: Record<string, Record<string, PropertyScalar>>
  units: Record<string, Record<string, string>>
}

/** Properties one node keeps; past it, the rest of the node's are left out. */
export const MAX_PROPERTIES_PER_NODE = 512
/** Longer text values are cut and end with '…'. */
export const MAX_PROPERTY_VALUE_CHARS = 1024
export const MAX_GROUP_NAME_CHARS = 128
export const MAX_PROPERTY_NAME_CHARS = 128
