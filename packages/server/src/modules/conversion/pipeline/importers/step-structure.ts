// The product structure of a STEP file, read from its text, to restore what occt-import-js drops.
// occt-import-js (0.0.23, importer-xcaf.cpp) treats an assembly's component that is itself an
// assembly as one "mesh node": a sub-sub-assembly's parts come back as a flat list of solids under
// the sub-assembly. The file's NEXT_ASSEMBLY_USAGE_OCCURRENCEs say which assembly holds which
// product, and OpenCascade lists those solids depth-first in that order, so the lost levels can be
// put back — but only where the solids' names spell exactly the expected sequence of parts; anything
// else stays as occt returned it.
import type { Node } from '@gltf-transform/core'
import type { NodeProperties, PropertyScalar } from '../properties.ts'
import type { OcctMesh, OcctNode } from './occt-worker.ts'

export interface ProductTree {
  /** product definition → its name (PRODUCT's name). */
  names: Map<string, string>
  /** A product's name → its id and description (PRODUCT's first and third fields; the first of a name). */
  products: Map<string, { id: string; description: string }>
  /** product definition → the definitions it uses, in file order (one entry per occurrence). */
  children: Map<string, string[]>
}

const ENTITY = /#(\d+)\s*=\s*([A-Z_0-9]+)\s*\(((?:[^;']|'(?:[^']|'')*')*)\)\s*;/g

/** Parses the few entities needed; a file this cannot make sense of gives an empty tree. */
export function readProductTree(bytes: Uint8Array): ProductTree {
  const text = new TextDecoder('latin1').decode(bytes)
  const products = new Map<string, string>()
  const byName = new Map<string, { id: string; description: string }>()
  const formations = new Map<string, string>()
  const definitions = new Map<string, string>()
  const usages: Array<{ id: number; parent: string; child: string }> = []
  for (const [, id = '', type, args = ''] of text.matchAll(ENTITY)) {
    const fields = splitArgs(args)
    if (type === 'PRODUCT') {
      const name = unquote(fields[1])
      products.set(id, name)
      if (!byName.has(name)) byName.set(name, { id: unquote(fields[0]), description: unquote(fields[2]) })
    } else if (type?.startsWith('PRODUCT_DEFINITION_FORMATION')) formations.set(id, ref(fields[2]))
    else if (type === 'PRODUCT_DEFINITION') definitions.set(id, ref(fields[2]))
    else if (type === 'NEXT_ASSEMBLY_USAGE_OCCURRENCE') {
      usages.push({ id: Number(id), parent: ref(fields[3]), child: ref(fields[4]) })
    }
  }
  const names = new Map<string, string>()
  for (const [definition, formation] of definitions) {
    const name = products.get(formations.get(formation) ?? '')
    if (name !== undefined) names.set(definition, name)
  }
  const children = new Map<string, string[]>()
  for (const usage of usages.sort((a, b) => a.id - b.id)) {
    children.set(usage.parent, [...(children.get(usage.parent) ?? []), usage.child])
  }
  return { names, products: byName, children }
}

/**
 * What a STEP file says about each node (docs/conversion.md, "Model properties"): its product's
 * name, id and description where a product has the node's name, and its path of assembly names.
 */
export function stepProperties(node: Node, path: readonly string[], tree: ProductTree): NodeProperties {
  const step: Record<string, PropertyScalar> = {}
  const product = tree.products.get(node.getName())
  if (product) {
    step.name = node.getName()
    if (product.id) step.id = product.id
    if (product.description) step.description = product.description
  }
  if (path.length > 0) step['assembly path'] = path.join(' / ')
  return { groups: Object.keys(step).length > 0 ? { STEP: step } : {}, units: {} }
}

/**
 * Restores sub-assemblies below `node` (recursively) where occt flattened them: a node holding only
 * solids whose names are, in order, the leaf parts of a product of the same name.
 */
export function restoreAssemblies(node: OcctNode, meshes: readonly OcctMesh[], tree: ProductTree): OcctNode {
  if (node.children.length > 0) {
    return { ...node, children: node.children.map((child) => restoreAssemblies(child, meshes, tree)) }
  }
  const solidNames = node.meshes.map((index) => meshes[index]?.name ?? '')
  for (const [definition, name] of tree.names) {
    if (name !== node.name || !(tree.children.get(definition)?.length ?? 0)) continue
    const leaves = leafNames(definition, tree, 0)
    if (leaves.length !== solidNames.length || leaves.some((leaf, k) => leaf !== solidNames[k])) continue
    let next = 0
    const rebuild = (id: string, depth: number): OcctNode => {
      const parts = tree.children.get(id) ?? []
      if (parts.length === 0 || depth > MAX_DEPTH)
        return { name: tree.names.get(id) ?? '', meshes: [node.meshes[next++] ?? 0], children: [] }
      return {
        name: tree.names.get(id) ?? '',
        meshes: [],
        children: parts.map((part) => rebuild(part, depth + 1)),
      }
    }
    return { ...rebuild(definition, 0), name: node.name }
  }
  return node
}

/** Deeper than any real assembly; stops a cyclic (broken) file. */
const MAX_DEPTH = 64

function leafNames(definition: string, tree: ProductTree, depth: number): string[] {
  const parts = tree.children.get(definition) ?? []
  if (parts.length === 0 || depth > MAX_DEPTH) return [tree.names.get(definition) ?? '']
  return parts.flatMap((part) => leafNames(part, tree, depth + 1))
}

/** Top-level comma-separated arguments (nested lists and strings kept whole). */
function splitArgs(args: string): string[] {
  const fields: string[] = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < args.length; i++) {
    const c = args[i]
    if (c === "'") quoted = !quoted
    else if (quoted) continue
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === ',' && depth === 0) {
      fields.push(args.slice(start, i).trim())
      start = i + 1
    }
  }
  fields.push(args.slice(start).trim())
  return fields
}

function unquote(field: string | undefined): string {
  return field?.startsWith("'") ? field.slice(1, -1).replaceAll("''", "'") : ''
}

function ref(field: string | undefined): string {
  return field?.startsWith('#') ? field.slice(1) : ''
}
