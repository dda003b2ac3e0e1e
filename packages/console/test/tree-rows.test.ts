// The scene tree's rows patched for one opened or closed node (tree-rows.ts nextRows) are the rows
// flattened from scratch, on a tree deep enough for nested opens and closes.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SceneNode } from '../src/api/index.ts'
import { nextRows, visibleRows } from '../src/screens/tree-rows.ts'

function tree(depth: number, width: number, prefix = 'n'): SceneNode[] {
  if (depth === 0) return []
  return Array.from({ length: width }, (_, i) => ({
    id: `${prefix}${i}`,
    name: `${prefix}${i}`,
    children: tree(depth - 1, width, `${prefix}${i}.`),
  }))
}

describe('tree rows', () => {
  it('patches the rows for one open or close exactly as a full flattening', () => {
    const nodes = tree(4, 3)
    const ids = visibleRows(nodes, new Set(visibleRows(nodes, new Set()).map((r) => r.node.id))).map(
      (r) => r.node.id,
    )
    let expanded = new Set<string>()
    let rows = visibleRows(nodes, expanded)
    // A fixed walk of opens and closes, some of nodes not in view (an ancestor closed).
    const steps = [
      'n1',
      'n1.2',
      'n0',
      'n1.2.0',
      'n1',
      'n1.2.1',
      'n1',
      'n0',
      'n2.1',
      'n1.2',
      ...ids.slice(0, 6),
    ]
    for (const id of steps) {
      const next = new Set(expanded)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      rows = nextRows(rows, nodes, expanded, next)
      expanded = next
      assert.deepEqual(rows, visibleRows(nodes, expanded), `after toggling ${id}`)
    }
  })

  it('flattens from scratch when several nodes changed at once', () => {
    const nodes = tree(3, 3)
    const before = new Set<string>()
    const after = new Set(['n0', 'n0.1', 'n2'])
    assert.deepEqual(nextRows(visibleRows(nodes, before), nodes, before, after), visibleRows(nodes, after))
  })
})
