// The scene tree's rows and keys, apart from drawing: the expanded nodes flattened in order (each
// with what a WAI-ARIA treeitem announces: level, position among its siblings), and what a key
// does on the focused row (the WAI-ARIA tree pattern, multi-select: Space toggles a row, Enter
// selects it alone, Shift with a move selects the range from the anchor).
import { useMemo, useRef } from 'preact/hooks'
import type { SceneNode } from '../api/index.ts'

export interface Row {
  node: SceneNode
  /** 1 for a root (aria-level). */
  level: number
  parent: string | null
  posinset: number
  setsize: number
}

/** A search's filter: the matching nodes (shown with all below them) and the paths down to them. */
export interface RowFilter {
  matches: ReadonlySet<string>
  paths: ReadonlySet<string>
}

function flatten(
  nodes: SceneNode[],
  expanded: Set<string>,
  level: number,
  parent: string | null,
  rows: Row[],
) {
  nodes.forEach((node, i) => {
    rows.push({ node, level, parent, posinset: i + 1, setsize: nodes.length })
    if (expanded.has(node.id)) flatten(node.children, expanded, level + 1, node.id, rows)
  })
}

export function visibleRows(tree: SceneNode[], expanded: Set<string>, filter?: RowFilter | null): Row[] {
  const rows: Row[] = []
  if (!filter) {
    flatten(tree, expanded, 1, null, rows)
    return rows
  }
  const walk = (all: SceneNode[], level: number, parent: string | null, filtered: boolean) => {
    const nodes = filtered ? all.filter((n) => filter.matches.has(n.id) || filter.paths.has(n.id)) : all
    nodes.forEach((node, i) => {
      rows.push({ node, level, parent, posinset: i + 1, setsize: nodes.length })
      if (expanded.has(node.id))
        walk(node.children, level + 1, node.id, filtered && !filter.matches.has(node.id))
    })
  }
  walk(tree, 1, null, true)
  return rows
}

/** The one node opened or closed between two expanded sets, or null when more changed. */
function toggled(before: Set<string>, after: Set<string>): { id: string; open: boolean } | null {
  const [small, large, open] = after.size > before.size ? [before, after, true] : [after, before, false]
  if (large.size - small.size !== 1) return null
  for (const id of large) if (!small.has(id)) return { id, open }
  return null
}

/**
 * The rows after one node opened or closed, from the rows before: only that node's rows are made
 * or dropped (the rest is copied by reference), so that opening a storey of a 100,000-node tree
 * does not flatten the whole tree again. Any other change flattens it all.
 */
export function nextRows(rows: Row[], tree: SceneNode[], before: Set<string>, after: Set<string>): Row[] {
  const change = toggled(before, after)
  if (!change) return visibleRows(tree, after)
  const index = rows.findIndex((r) => r.node.id === change.id)
  const row = rows[index]
  // Not in view (an ancestor is closed): its rows are not drawn either way.
  if (!row) return rows
  if (change.open) {
    const inner: Row[] = []
    flatten(row.node.children, after, row.level + 1, row.node.id, inner)
    return rows.slice(0, index + 1).concat(inner, rows.slice(index + 1))
  }
  let end = index + 1
  while (end < rows.length && (rows[end]?.level ?? 0) > row.level) end++
  return rows.slice(0, index + 1).concat(rows.slice(end))
}

/** What a key on a row asks for: focus another row, open or close a node, or select one. */
export type TreeMove =
  | { kind: 'focus'; index: number }
  | { kind: 'expand' | 'collapse' | 'select' | 'toggle'; id: string }

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
      return { kind: 'select', id }
    // The multi-select tree: Space adds the row to the selection or takes it out.
    case ' ':
      return { kind: 'toggle', id }
    default:
      return null
  }
}

/** The rows' ids from index `a` to index `b` (either order): a Shift range. */
export function rangeIds(rows: Row[], a: number, b: number): string[] {
  const [from, to] = a <= b ? [a, b] : [b, a]
  return rows.slice(Math.max(0, from), to + 1).map((r) => r.node.id)
}

/**
 * The rows in view, patched from the previous ones when a single node opens or closes (no search
 * filter: a filtered list is small, and flattened again).
 */
export function useRows(tree: SceneNode[], expanded: Set<string>, filter: RowFilter | null): Row[] {
  const last = useRef<{
    tree: SceneNode[]
    expanded: Set<string>
    rows: Row[]
    filter: RowFilter | null
  } | null>(null)
  return useMemo(() => {
    const before = last.current
    const rows =
      before && before.tree === tree && !filter && !before.filter
        ? nextRows(before.rows, tree, before.expanded, expanded)
        : visibleRows(tree, expanded, filter)
    last.current = { tree, expanded, rows, filter }
    return rows
  }, [tree, expanded, filter])
}
