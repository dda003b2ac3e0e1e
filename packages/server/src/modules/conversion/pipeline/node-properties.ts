// A model's own data about its nodes (docs/conversion.md, "Model properties"). Importers attach it
// to a node's extras under PROPERTIES_KEY, where it rides through the optimization (nodes are
// cloned, renamed or given parents, never merged); once the final scene tree has its IDs,
// takeProperties() moves it out of the extras, so the GLB the viewer downloads does not carry it.
import type { Document, Node } from '@gltf-transform/core'
import {
  MAX_GROUP_NAME_CHARS,
  MAX_PROPERTIES_PER_NODE,
  MAX_PROPERTY_NAME_CHARS,
  MAX_PROPERTY_VALUE_CHARS,
  type NodeProperties,
  type PropertyScalar,
} from './properties.ts'
import { viewedScene } from './scene-tree.ts'

const PROPERTIES_KEY = 'tesseraProperties'
/** The root's extras key for what an importer had to cut (takeProperties reports and removes it). */
const TRUNCATED_KEY = 'tesseraTruncated'
/** Extras the pipeline itself writes: never shown as the model's own `extras`. */
const OWN_EXTRAS = new Set([PROPERTIES_KEY, 'tesseraId', 'ifcType', 'ifcGlobalId'])
/** Most property rows one file keeps; past it, nodes get no more (reported as truncated). */
const MAX_PROPERTIES_PER_FILE = 2_000_000
/** Nested extras deeper than this are not flattened further (their keys would be unreadable anyway). */
const MAX_EXTRAS_DEPTH = 8

/** One node's properties, keyed by the node's ID in the final scene tree. */
export interface PropertyEntry extends NodeProperties {
  nodeId: string
}

/** Collects the notes on what was cut, once per kind. */
export class Truncations {
  readonly #seen = new Map<string, number>()
  note(what: string, nodes = 1): void {
    this.#seen.set(what, (this.#seen.get(what) ?? 0) + nodes)
  }
  /** e.g. `value length (3 nodes)`. */
  list(): string[] {
    return [...this.#seen].map(([what, count]) => `${what} (${count} node${count === 1 ? '' : 's'})`)
  }
}

/** Notes that an importer cut some of a node's properties (`what`: e.g. `value length`). */
export function noteTruncation(document: Document, what: string): void {
  const extras = document.getRoot().getExtras() as Record<string, unknown>
  const held = extras[TRUNCATED_KEY]
  const counts = (typeof held === 'object' && held !== null ? held : {}) as Record<string, number>
  setOwn(counts, what, (Object.hasOwn(counts, what) ? (counts[what] ?? 0) : 0) + 1)
  if (held !== counts) document.getRoot().setExtras({ ...extras, [TRUNCATED_KEY]: counts })
}

/** Adds `properties` to the node's, group by group (a later group of the same name wins per property). */
export function attachProperties(node: Node, properties: NodeProperties): void {
  if (Object.keys(properties.groups).length === 0) return
  const extras = objectExtras(node)
  const held = (extras[PROPERTIES_KEY] as NodeProperties | undefined) ?? { groups: {}, units: {} }
  for (const [group, values] of Object.entries(properties.groups)) {
    mergeOwn(ownGroup(held.groups, group), values)
  }
  for (const [group, units] of Object.entries(properties.units)) {
    mergeOwn(ownGroup(held.units, group), units)
  }
  node.setExtras({ ...extras, [PROPERTIES_KEY]: held })
}

/**
 * What every format's nodes say about themselves once imported: their own glTF `extras`
 * (flattened to `a.b.0` names) and, unless the importer described materials itself (IFC), the
 * names of their mesh and its materials.
 */
export function stampSourceProperties(document: Document, options: { meshNames: boolean }): void {
  viewedScene(document)?.traverse((node) => {
    const groups: NodeProperties['groups'] = {}
    const extras = flattenExtras(node.getExtras())
    if (Object.keys(extras).length > 0) groups.extras = extras
    const mesh = options.meshNames ? meshProperties(node) : {}
    if (Object.keys(mesh).length > 0) groups.Mesh = mesh
    if (Object.keys(groups).length > 0) attachProperties(node, { groups, units: {} })
  })
}

function meshProperties(node: Node): Record<string, PropertyScalar> {
  const mesh = node.getMesh()
  if (!mesh) return {}
  const out: Record<string, PropertyScalar> = {}
  if (mesh.getName()) out.name = mesh.getName()
  const materials = new Set<string>()
  for (const primitive of mesh.listPrimitives()) {
    const name = primitive.getMaterial()?.getName()
    if (name) materials.add(name)
  }
  if (materials.size > 0) out.materials = [...materials].join(', ')
  return out
}

function flattenExtras(extras: unknown): Record<string, PropertyScalar> {
  const out: Record<string, PropertyScalar> = {}
  const walk = (value: unknown, key: string, depth: number): void => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      if (key && Object.keys(out).length < MAX_PROPERTIES_PER_NODE) setOwn(out, key, value)
      return
    }
    if (typeof value !== 'object' || value === null || depth > MAX_EXTRAS_DEPTH) return
    for (const [name, inner] of Object.entries(value)) {
      if (depth === 0 && OWN_EXTRAS.has(name)) continue
      walk(inner, key ? `${key}.${name}` : name, depth + 1)
    }
  }
  walk(extras, '', 0)
  return out
}

/**
 * Moves every node's properties out of its extras, in tree order, bounded per node (count, name
 * and value lengths) and per file; what was cut is noted in `truncations`.
 */
export function takeProperties(document: Document, truncations: Truncations): PropertyEntry[] {
  takeImporterNotes(document, truncations)
  const entries: PropertyEntry[] = []
  let total = 0
  viewedScene(document)?.traverse((node) => {
    const extras = objectExtras(node)
    const held = extras[PROPERTIES_KEY] as NodeProperties | undefined
    if (held === undefined) return
    const { [PROPERTIES_KEY]: _taken, ...rest } = extras
    node.setExtras(rest)
    const nodeId = rest.tesseraId
    if (typeof nodeId !== 'string') return
    const bounded = boundProperties(held, truncations)
    const count = countProperties(bounded)
    if (total + count > MAX_PROPERTIES_PER_FILE) return truncations.note('properties per file')
    total += count
    if (count > 0) entries.push({ nodeId, ...bounded })
  })
  return entries
}

function takeImporterNotes(document: Document, truncations: Truncations): void {
  const root = document.getRoot()
  const { [TRUNCATED_KEY]: noted, ...rest } = (root.getExtras() ?? {}) as Record<string, unknown>
  if (typeof noted !== 'object' || noted === null) return
  for (const [what, count] of Object.entries(noted)) truncations.note(what, Number(count))
  root.setExtras(rest)
}

function boundProperties(held: NodeProperties, truncations: Truncations): NodeProperties {
  const out: NodeProperties = { groups: {}, units: {} }
  let count = 0
  for (const [rawGroup, values] of Object.entries(held.groups)) {
    const group = cut(rawGroup, MAX_GROUP_NAME_CHARS, truncations, 'group name length')
    for (const [rawName, rawValue] of Object.entries(values)) {
      if (count++ >= MAX_PROPERTIES_PER_NODE) {
        truncations.note('properties per node')
        return out
      }
      const name = cut(rawName, MAX_PROPERTY_NAME_CHARS, truncations, 'property name length')
      const value =
        typeof rawValue === 'string'
          ? cut(rawValue, MAX_PROPERTY_VALUE_CHARS, truncations, 'value length')
          : rawValue
      if (typeof value === 'number' && !Number.isFinite(value)) continue
      setOwn(ownGroup(out.groups, group), name, value)
      const units = Object.hasOwn(held.units, rawGroup) ? held.units[rawGroup] : undefined
      const unit = units && Object.hasOwn(units, rawName) ? units[rawName] : undefined
      if (typeof unit === 'string') setOwn(ownGroup(out.units, group), name, unit)
    }
  }
  return out
}

/**
 * Names come from the model: `__proto__` is a name like any other, so it is defined as an own
 * property (plain assignment would set the object's prototype instead and lose the value).
 */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function mergeOwn<T>(target: Record<string, T>, source: Record<string, T>): void {
  for (const [key, value] of Object.entries(source)) setOwn(target, key, value)
}

function ownGroup<T>(record: Record<string, Record<string, T>>, key: string): Record<string, T> {
  if (!Object.hasOwn(record, key)) setOwn(record, key, {})
  return record[key] as Record<string, T>
}

function cut(text: string, max: number, truncations: Truncations, what: string): string {
  if ([...text].length <= max) return text
  truncations.note(what)
  return `${[...text].slice(0, max - 1).join('')}…`
}

function countProperties(properties: NodeProperties): number {
  let count = 0
  for (const values of Object.values(properties.groups)) count += Object.keys(values).length
  return count
}

function objectExtras(node: Node): Record<string, unknown> {
  const extras: unknown = node.getExtras()
  return typeof extras === 'object' && extras !== null && !Array.isArray(extras)
    ? (extras as Record<string, unknown>)
    : {}
}
