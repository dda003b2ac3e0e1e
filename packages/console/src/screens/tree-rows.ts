// The scene tree's rows and keys, apart from drawing: the expanded nodes flattened in order (each
// with what a WAI-ARIA treeitem announces: level, position among its siblings), and what a key
// does on the focused row (the WAI-ARIA tree pattern).
import type { SceneNode } from '../api/index.ts'

export interface Row {
  node: SceneNode
  /** 1 for a root (aria-level). */
  level: number
  parent: string | null
  posinset: number
  setsize: number
}

export function visibleRows(tree: SceneNode[], expanded: Set<string>): Row[] {
  const rows: Row[] = []
  const walk = (nodes: SceneNode[], level: number, parent: string | null) => {
    nodes.forEach((node, i) => {
      rows.push({ node, level, parent, posinset: i + 1, setsize: nodes.length })
      if (expanded.has(node.id)) walk(node.children, level + 1, node.id)
    })
  }
  walk(tree, 1, null)
  return rows
}

/** What a key on a row asks for: focus another row, open or close a node, or select one. */
export type TreeMove =
  | { kind: 'focus'; index: number }
  | { kind: 'expand' | 'collapse' | 'select'; id: string }

export function treeMove(key: string, rows: Row[], index: number, expanded: Set<string>): TreeMove | null {
  const row = rows[index]
  if (!row) return null
  const id = row.node.id
  const open = expanded.has(id)
  const branch = row.node.children.length > 0
  switch (key) {
    case 'ArrowDown':
      return { kind: 'focus', index: Math.min(index + 1, rows.length - 1) }
    case 'ArrowUp':
      return { kind: 'focus', index: Math.max(index - 1, 0) }
    case 'Home':
      return { kind: 'focus', index: 0 }
    case 'End':
      return { kind: 'focus', index: rows.length - 1 }
    case 'ArrowRight':
      if (!branch) return null
      return open ? { kind: 'focus', index: index + 1 } : { kind: 'expand', id }
    case 'ArrowLeft':
      if (branch && open) return { kind: 'collapse', id }
      return row.parent ? { kind: 'focus', index: rows.findIndex((r) => r.node.id === row.parent) } : null
    case 'Enter':
    case ' ':
      return { kind: 'select', id }
    default:
      return null
  }
}
