// The scene tree flattened once per model for search and isolation: every node in depth-first
// order with its lowercased name, its parent's position and where its subtree ends. A search is then
// one pass over an array of strings (no recursive walk per keystroke): 100,000 nodes in a few
// milliseconds (test/tree-search.test.ts measures it).
import type { SceneNode } from '../api/index.ts'

export interface TreeIndex {
  ids: string[]
  /** Names lowercased (search is case-insensitive). */
  names: string[]
  /** The parent's position, -1 for a root. */
  parent: Int32Array
  /** One past the last position of the node's subtree (its descendants are position + 1 … end − 1). */
  end: Int32Array
  position: Map<string, number>
}

export function indexTree(tree: SceneNode[]): TreeIndex {
  const ids: string[] = []
  const names: string[] = []
  const parents: number[] = []
  // Iterative: a deep tree (an IFC's nesting, a generated chain) must not overflow the stack.
  const nodes: SceneNode[] = [...tree].reverse()
  const from: number[] = nodes.map(() => -1)
  while (nodes.length > 0) {
    const node = nodes.pop() as SceneNode
    const at = ids.length
    ids.push(node.id)
    names.push((node.name || '').toLowerCase())
    parents.push(from.pop() as number)
    for (let i = node.children.length - 1; i >= 0; i--) {
      nodes.push(node.children[i] as SceneNode)
      from.push(at)
    }
  }
  const parent = Int32Array.from(parents)
  // Depth-first order: a subtree is a run of positions; its end is its last descendant's, plus one.
  const end = new Int32Array(ids.length)
  for (let i = ids.length - 1; i >= 0; i--) {
    end[i] = Math.max(end[i] as number, i + 1)
    const p = parent[i] as number
    if (p >= 0) end[p] = Math.max(end[p] as number, end[i] as number)
  }
  return { ids, names, parent, end, position: new Map(ids.map((id, i) => [id, i])) }
}

export interface SearchResult {
  /** The matching nodes' ids, in tree order. */
  ids: string[]
  /** Their ancestors: opened so that every match shows. */
  paths: Set<string>
}

/** Nodes whose name contains `text` (case-insensitive); empty text matches nothing. */
export function searchTree(index: TreeIndex, text: string): SearchResult {
  const needle = text.trim().toLowerCase()
  const ids: string[] = []
  const paths = new Set<string>()
  if (!needle) return { ids, paths }
  const { names, parent } = index
  for (let i = 0; i < names.length; i++) {
    if (!(names[i] as string).includes(needle)) continue
    ids.push(index.ids[i] as string)
    for (let p = parent[i] as number; p >= 0; p = parent[p] as number) {
      const id = index.ids[p] as string
      // Its own ancestors were added with it.
      if (paths.has(id)) break
      paths.add(id)
    }
  }
  return { ids, paths }
}

/**
 * What to hide so that only `keep` shows: every node but the kept ones, their descendants (a kept
 * assembly shows whole) and their ancestors (hiding a parent would hide its child).
 */
export function hiddenExcept(index: TreeIndex, keep: Iterable<string>): Set<string> {
  const shown = new Uint8Array(index.ids.length)
  for (const id of keep) {
    const at = index.position.get(id)
    if (at === undefined) continue
    shown.fill(1, at, index.end[at])
    for (let p = index.parent[at] as number; p >= 0 && !shown[p]; p = index.parent[p] as number) shown[p] = 1
  }
  const hidden = new Set<string>()
  for (let i = 0; i < shown.length; i++) if (!shown[i]) hidden.add(index.ids[i] as string)
  return hidden
}
