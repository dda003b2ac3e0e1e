// What a BIM viewer shows about an IFC product: its attributes, type and container (`IFC`), its
// property and quantity sets (the type's first, the occurrence's override them), `Materials` and
// `Classification`. Each relation line is read once into maps, so the cost stays linear in the
// file; values with a unit are in SI units (ifc-values.ts).
import {
  IFCRELASSOCIATESCLASSIFICATION,
  IFCRELASSOCIATESMATERIAL,
  IFCRELCONTAINEDINSPATIALSTRUCTURE,
  IFCRELDEFINESBYPROPERTIES,
  IFCRELDEFINESBYTYPE,
  type IfcAPI,
} from 'web-ifc'
import {
  MAX_GROUP_NAME_CHARS,
  MAX_PROPERTIES_PER_NODE,
  MAX_PROPERTY_NAME_CHARS,
  MAX_PROPERTY_VALUE_CHARS,
  type NodeProperties,
  type PropertyScalar,
} from '../properties.ts'
import {
  classification,
  classOf,
  type Entry,
  field,
  type IfcLines,
  idsOfType,
  lineOf,
  measure,
  openLines,
  property,
  reference,
  references,
  text,
} from './ifc-values.ts'

interface Group {
  name: string
  entries: Entry[]
}
/** A type object or a spatial container, as the IFC group names it. */
interface Named {
  name: string | undefined
  className: string
}
interface TypeObject extends Named {
  definitions: number[]
}
interface Relations {
  typeOf: Map<number, number>
  definitions: Map<number, number[]>
  /** Definitions more than one product has: parsed once and cached. */
  shared: Set<number>
  materials: Map<number, number>
  classifications: Map<number, number[]>
  containers: Map<number, number>
}
interface Context extends IfcLines {
  relations: Relations
  groups: Map<number, Group | undefined>
  types: Map<number, TypeObject | undefined>
  containers: Map<number, Named | undefined>
  materials: Map<number, Group | undefined>
  classes: Map<number, [string, string] | undefined>
}

const IDENTITY_ATTRIBUTES = ['GlobalId', 'Name', 'Description', 'ObjectType', 'Tag', 'PredefinedType']

/** Properties of every product in `expressIDs`; products with nothing to say are still present (IFC group at least). */
export function ifcProperties(
  api: IfcAPI,
  modelID: number,
  expressIDs: Iterable<number>,
  onTruncated?: (what: string) => void,
): Map<number, NodeProperties> {
  const wanted = new Set(expressIDs)
  const lines = openLines(api, modelID)
  const relations = readRelations(lines, wanted)
  const context: Context = {
    ...lines,
    relations,
    groups: new Map(),
    types: new Map(),
    containers: new Map(),
    materials: new Map(),
    classes: new Map(),
  }
  const out = new Map<number, NodeProperties>()
  for (const id of wanted) out.set(id, productProperties(context, id, onTruncated))
  return out
}

function productProperties(
  context: Context,
  id: number,
  onTruncated?: (what: string) => void,
): NodeProperties {
  const node = new BoundedNode(onTruncated)
  const { relations } = context
  const typeId = relations.typeOf.get(id) ?? -1
  const type = typeObject(context, typeId)
  for (const entry of identity(context, id, type)) node.set('IFC', entry)
  // The type's sets first, so that the occurrence's values override them.
  const definitions = (ids: number[], keep: (id: number) => boolean): void => {
    for (const definition of ids) {
      const parse = (): Group | undefined => propertyGroup(context, definition)
      const group = cached(context.groups, definition, keep(definition), parse)
      for (const entry of group?.entries ?? []) node.set(group?.name ?? '', entry)
    }
  }
  definitions(type?.definitions ?? [], () => true)
  definitions(relations.definitions.get(id) ?? [], (definition) => relations.shared.has(definition))
  const material = relations.materials.get(id) ?? relations.materials.get(typeId)
  if (material !== undefined) {
    const group = cached(context.materials, material, true, () => materialGroup(context, material))
    for (const entry of group?.entries ?? []) node.set('Materials', entry)
  }
  const classes = [
    ...(relations.classifications.get(typeId) ?? []),
    ...(relations.classifications.get(id) ?? []),
  ]
  for (const reference of classes) {
    const found = cached(context.classes, reference, true, () => classification(context, reference))
    if (found) node.set('Classification', { name: found[0], value: found[1] })
  }
  return node.build()
}

/** The `IFC` group: the product's own attributes, then its type's and its container's names and classes. */
function identity(context: Context, id: number, type: TypeObject | undefined): Entry[] {
  const line = lineOf(context, id)
  const entries: Entry[] = []
  const add = (name: string, value: string | undefined): void => {
    if (value) entries.push({ name, value })
  }
  add('class', line && classOf(context, line))
  for (const attribute of IDENTITY_ATTRIBUTES) add(attribute, text(field(line, attribute)))
  add('type', type?.name)
  add('typeClass', type?.className)
  const containerId = context.relations.containers.get(id)
  const container = containerId === undefined ? undefined : containerOf(context, containerId)
  add('container', container?.name)
  add('containerClass', container?.className)
  return entries
}

function containerOf(context: Context, id: number): Named | undefined {
  return cached(context.containers, id, true, () => {
    const line = lineOf(context, id)
    return line && { name: text(field(line, 'Name')), className: classOf(context, line) }
  })
}

function typeObject(context: Context, id: number): TypeObject | undefined {
  if (id < 0) return undefined
  return cached(context.types, id, true, () => {
    const line = lineOf(context, id)
    if (!line) return undefined
    const definitions = [...references(field(line, 'HasPropertySets'))]
    definitions.push(...(context.relations.definitions.get(id) ?? []))
    return { name: text(field(line, 'Name')), className: classOf(context, line), definitions }
  })
}

/** A property set or an element quantity set as a group named by its Name; other definitions are skipped. */
function propertyGroup(context: Context, id: number): Group | undefined {
  const line = lineOf(context, id)
  if (!line) return undefined
  const className = classOf(context, line)
  if (className !== 'IfcPropertySet' && className !== 'IfcElementQuantity') return undefined
  const items = references(field(line, className === 'IfcElementQuantity' ? 'Quantities' : 'HasProperties'))
  const entries: Entry[] = []
  // A node keeps no more than this anyway; one more lets it notice that it was cut.
  for (const item of items.slice(0, MAX_PROPERTIES_PER_NODE + 1)) entries.push(...property(context, item))
  return { name: text(field(line, 'Name')) ?? className, entries }
}

/**
 * Materials by names, layers also by thickness (in m). A usage stands for its set; sets name
 * their members `Layer 1`, `Constituent 1`, `Profile 1`, a list `Material 1`, ….
 */
function materialGroup(context: Context, id: number, depth = 0): Group | undefined {
  const line = lineOf(context, id)
  if (!line || depth > 2) return undefined
  const className = classOf(context, line)
  const usage = reference(field(line, 'ForLayerSet')) ?? reference(field(line, 'ForProfileSet'))
  if (usage !== undefined) return materialGroup(context, usage, depth + 1)
  const entries: Entry[] = []
  const add = (name: string, value: string | undefined): void => {
    if (value) entries.push({ name, value })
  }
  const members = (key: string, label: string): void => {
    references(field(line, key)).forEach((member, i) => {
      const item = lineOf(context, member)
      const material =
        className === 'IfcMaterialList' ? item : lineOf(context, reference(field(item, 'Material')))
      add(`${label} ${i + 1}`, text(field(material, 'Name')) ?? text(field(item, 'Name')))
      const thickness = measure(context, field(item, 'LayerThickness'), undefined, 'LENGTHUNIT')
      if (thickness) entries.push({ name: `${label} ${i + 1} thickness`, ...thickness })
    })
  }
  if (className === 'IfcMaterial') add('Material', text(field(line, 'Name')))
  if (className === 'IfcMaterialList') members('Materials', 'Material')
  if (className === 'IfcMaterialLayerSet') add('Layer set', text(field(line, 'LayerSetName')))
  if (className === 'IfcMaterialLayerSet') members('MaterialLayers', 'Layer')
  if (className === 'IfcMaterialConstituentSet') add('Constituent set', text(field(line, 'Name')))
  if (className === 'IfcMaterialConstituentSet') members('MaterialConstituents', 'Constituent')
  if (className === 'IfcMaterialProfileSet') add('Profile set', text(field(line, 'Name')))
  if (className === 'IfcMaterialProfileSet') members('MaterialProfiles', 'Profile')
  return { name: 'Materials', entries }
}

/**
 * Every relation line is read once: products' types, then the sets, materials and classifications
 * of those products and types, and the products' spatial containers.
 */
function readRelations(lines: IfcLines, wanted: ReadonlySet<number>): Relations {
  const relations: Relations = {
    typeOf: new Map(),
    definitions: new Map(),
    shared: new Set(),
    materials: new Map(),
    classifications: new Map(),
    containers: new Map(),
  }
  // A product is in one container, of one type, of one material definition: the first relation wins.
  const first =
    (map: Map<number, number>): Visit =>
    (subject, relating) => {
      if (!map.has(subject)) map.set(subject, relating)
    }
  const all =
    (map: Map<number, number[]>): Visit =>
    (subject, relating) => {
      const list = map.get(subject)
      if (list) list.push(relating)
      else map.set(subject, [relating])
    }
  const each = (type: number, key: string, subjects: ReadonlySet<number>, visit: Visit): void =>
    eachRelation(lines, type, key, subjects, visit)
  each(IFCRELDEFINESBYTYPE, 'RelatingType', wanted, first(relations.typeOf))
  // Types have sets, materials and classifications of their own.
  const subjects = new Set([...wanted, ...relations.typeOf.values()])
  const used = new Set<number>()
  each(IFCRELDEFINESBYPROPERTIES, 'RelatingPropertyDefinition', subjects, (subject, definition) => {
    if (used.has(definition)) relations.shared.add(definition)
    used.add(definition)
    all(relations.definitions)(subject, definition)
  })
  each(IFCRELASSOCIATESMATERIAL, 'RelatingMaterial', subjects, first(relations.materials))
  each(IFCRELASSOCIATESCLASSIFICATION, 'RelatingClassification', subjects, all(relations.classifications))
  each(IFCRELCONTAINEDINSPATIALSTRUCTURE, 'RelatingStructure', wanted, first(relations.containers))
  return relations
}

type Visit = (subject: number, relating: number) => void

/** Calls `visit` for each of `subjects` a relation of `type` relates, with what it relates them to. */
function eachRelation(
  lines: IfcLines,
  type: number,
  relatingKey: string,
  subjects: ReadonlySet<number>,
  visit: Visit,
): void {
  for (const id of idsOfType(lines, type)) {
    const line = lineOf(lines, id)
    // A list here (IFC4's IfcPropertySetDefinitionSet) reaches us as a reference without a value.
    const relating = reference(field(line, relatingKey))
    if (relating === undefined) continue
    for (const subject of references(field(line, 'RelatedObjects') ?? field(line, 'RelatedElements'))) {
      if (subjects.has(subject)) visit(subject, relating)
    }
  }
}

/**
 * One node's properties as they are added, bounded: past MAX_PROPERTIES_PER_NODE new names are
 * dropped (a later group may still override a kept one); long names and values are cut with '…'.
 */
class BoundedNode {
  // IFC first, and present even when the product's line is unreadable.
  readonly #groups = new Map([['IFC', new Map<string, Entry>()]])
  readonly #noted = new Set<string>()
  readonly #onTruncated: ((what: string) => void) | undefined
  #count = 0

  constructor(onTruncated?: (what: string) => void) {
    this.#onTruncated = onTruncated
  }

  set(rawGroup: string, entry: Entry): void {
    const group = this.#cut(rawGroup, MAX_GROUP_NAME_CHARS, 'group name length')
    const name = this.#cut(entry.name, MAX_PROPERTY_NAME_CHARS, 'property name length')
    const values = this.#groups.get(group) ?? new Map<string, Entry>()
    if (!values.has(name) && this.#count >= MAX_PROPERTIES_PER_NODE) {
      this.#note('properties per node')
      return
    }
    if (!values.has(name)) this.#count++
    const value =
      typeof entry.value === 'string'
        ? this.#cut(entry.value, MAX_PROPERTY_VALUE_CHARS, 'value length')
        : entry.value
    this.#groups.set(group, values.set(name, { name, value, unit: entry.unit }))
  }

  // Object.fromEntries defines `__proto__` as an own property like any other name.
  build(): NodeProperties {
    const groups: [string, Record<string, PropertyScalar>][] = []
    const units: [string, Record<string, string>][] = []
    for (const [group, values] of this.#groups) {
      const entries = [...values.values()]
      groups.push([group, Object.fromEntries(entries.map((entry) => [entry.name, entry.value]))])
      const withUnit = entries.flatMap(({ name, unit }) => (unit ? [[name, unit] as const] : []))
      if (withUnit.length > 0) units.push([group, Object.fromEntries(withUnit)])
    }
    return { groups: Object.fromEntries(groups), units: Object.fromEntries(units) }
  }

  #cut(text: string, max: number, what: string): string {
    // UTF-16 length bounds the code point count: most texts need no closer look.
    if (text.length <= max || [...text].length <= max) return text
    this.#note(what)
    return `${[...text].slice(0, max - 1).join('')}…`
  }

  #note(what: string): void {
    if (this.#noted.has(what)) return
    this.#noted.add(what)
    this.#onTruncated?.(what)
  }
}

/** Parses `id` once when others will ask for it too (`keep`), else every time it is asked for. */
function cached<T>(cache: Map<number, T>, id: number, keep: boolean, parse: () => T): T {
  if (cache.has(id)) return cache.get(id) as T
  const parsed = parse()
  if (keep) cache.set(id, parsed)
  return parsed
}
