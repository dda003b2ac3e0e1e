// The scene tree: a flat list of the expanded rows (cheap for big IFC trees), synced with the 3D
// selection both ways; each row can hide/show its node or isolate it.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { SceneNode } from '../api/index.ts'

interface Row {
  node: SceneNode
  depth: number
}

/** Parent of every node ID, to expand the path to a node picked in 3D. */
export function parentsOf(tree: SceneNode[]): Map<string, string | null> {
  const parents = new Map<string, string | null>()
  const walk = (nodes: SceneNode[], parent: string | null) => {
    for (const n of nodes) {
      parents.set(n.id, parent)
      walk(n.children, n.id)
    }
  }
  walk(tree, null)
  return parents
}

/** Levels opened breadth-first while the rows in view stay under 40: parts show, no wall of rows. */
function initiallyOpen(tree: SceneNode[]): Set<string> {
  const open = new Set<string>()
  let level = tree
  let visible = tree.length
  while (level.length > 0) {
    const next = level.flatMap((n) => n.children)
    if (visible + next.length > 40 && open.size > 0) break
    for (const n of level) if (n.children.length > 0) open.add(n.id)
    visible += next.length
    level = next
  }
  return open
}

export function descendants(node: SceneNode): string[] {
  return [node.id, ...node.children.flatMap(descendants)]
}

export function SceneTree(props: {
  tree: SceneNode[]
  selected: string | null
  hidden: Set<string>
  onSelect: (id: string) => void
  onToggle: (node: SceneNode) => void
  onIsolate: (node: SceneNode) => void
}) {
  const parents = useMemo(() => parentsOf(props.tree), [props.tree])
  const [expanded, setExpanded] = useState<Set<string>>(() => initiallyOpen(props.tree))
  const list = useRef<HTMLUListElement>(null)

  // A node picked in 3D: open its ancestors and bring its row into view.
  useEffect(() => {
    if (!props.selected) return
    const missing: string[] = []
    for (let p = parents.get(props.selected) ?? null; p; p = parents.get(p) ?? null) {
      if (!expanded.has(p)) missing.push(p)
    }
    if (missing.length > 0) setExpanded((e) => new Set([...e, ...missing]))
    requestAnimationFrame(() =>
      list.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: 'nearest' }),
    )
  }, [props.selected, parents])

  const rows: Row[] = []
  const walk = (nodes: SceneNode[], depth: number) => {
    for (const node of nodes) {
      rows.push({ node, depth })
      if (expanded.has(node.id)) walk(node.children, depth + 1)
    }
  }
  walk(props.tree, 0)

  const toggleOpen = (id: string) =>
    setExpanded((e) => {
      const next = new Set(e)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })

  return (
    <ul class="tree" aria-label="Scene tree" ref={list}>
      {rows.map(({ node, depth }) => (
        <li
          key={node.id}
          class={props.hidden.has(node.id) ? 'hidden-node' : ''}
          style={{ paddingLeft: `${depth * 14}px` }}
        >
          {node.children.length > 0 ? (
            <button
              type="button"
              class="twisty"
              aria-label={`${expanded.has(node.id) ? 'Collapse' : 'Expand'} ${node.name}`}
              aria-expanded={expanded.has(node.id)}
              onClick={() => toggleOpen(node.id)}
            >
              {expanded.has(node.id) ? '▾' : '▸'}
            </button>
          ) : (
            <span class="twisty" />
          )}
          <button
            type="button"
            class="node"
            data-node={node.id}
            aria-current={props.selected === node.id ? 'true' : undefined}
            onClick={() => props.onSelect(node.id)}
          >
            {node.name || '(unnamed)'}
          </button>
          <button
            type="button"
            class="ghost small"
            aria-label={`${props.hidden.has(node.id) ? 'Show' : 'Hide'} ${node.name}`}
            onClick={() => props.onToggle(node)}
          >
            {props.hidden.has(node.id) ? 'Show' : 'Hide'}
          </button>
          <button
            type="button"
            class="ghost small"
            aria-label={`Isolate ${node.name}`}
            onClick={() => props.onIsolate(node)}
          >
            Isolate
          </button>
        </li>
      ))}
    </ul>
  )
}
