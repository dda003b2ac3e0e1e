// Tree search and isolation over the flattened index (screens/tree-index.ts), the filtered rows
// (tree-rows.ts) and the live selection's bound (api/live.ts), without a browser; the search's time
// at 100,000 nodes is measured and printed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { SceneNode } from '../src/api/index.ts'
import { sharedSelection } from '../src/api/live.ts'
import { hiddenExcept, indexTree, searchTree } from '../src/screens/tree-index.ts'
import { rangeIds, visibleRows } from '../src/screens/tree-rows.ts'

const node = (id: string, name: string, children: SceneNode[] = []): SceneNode =>
  ({ id, name, children }) as SceneNode

/** 100 storeys × 10 rooms × 99 parts (+ the storeys and rooms): 100,100 nodes. */
function bigTree(): SceneNode[] {
  return Array.from({ length: 100 }, (_, s) =>
    node(
      `s${s}`,
      `Storey ${s}`,
      Array.from({ length: 10 }, (_, r) =>
        node(
          `s${s}r${r}`,
          `Room ${s}.${r}`,
          Array.from({ length: 99 }, (_, p) =>
            node(`s${s}r${r}p${p}`, p % 33 === 7 ? `Door ${p}` : `Wall ${p}`),
          ),
        ),
      ),
    ),
  )
}

describe('tree search', () => {
  const small = [
    node('a', 'Assembly', [node('b', 'Bolt M8'), node('c', 'Plate', [node('d', 'bolt hole')])]),
    node('e', 'Frame'),
  ]

  it('matches names case-insensitively and opens the paths to them', () => {
    const result = searchTree(indexTree(small), 'BOLT')
    assert.deepEqual(result.ids, ['b', 'd'])
    assert.deepEqual([...result.paths].sort(), ['a', 'c'])
    assert.deepEqual(searchTree(indexTree(small), '   ').ids, [])
  })

  it('filters the rows to the matches and the paths down to them (what is under a match stays)', () => {
    const index = indexTree(small)
    const result = searchTree(index, 'plate')
    const filter = { matches: new Set(result.ids), paths: result.paths }
    const rows = visibleRows(small, new Set(['a', 'c']), filter)
    assert.deepEqual(
      rows.map((r) => r.node.id),
      ['a', 'c', 'd'],
    )
    assert.deepEqual(rangeIds(rows, 2, 0), ['a', 'c', 'd'])
  })

  it('isolating keeps the nodes, what is under them and their ancestors', () => {
    const hidden = hiddenExcept(indexTree(small), ['c'])
    assert.deepEqual([...hidden].sort(), ['b', 'e'])
  })

  it('searches 100,000 nodes in well under a frame budget per query', () => {
    const tree = bigTree()
    let t = performance.now()
    const index = indexTree(tree)
    const indexMs = performance.now() - t
    assert.equal(index.ids.length, 100_100)
    const times: number[] = []
    let found = 0
    for (const text of ['door', 'wall 9', 'room 42.', 'nothing here', 'Door 7']) {
      t = performance.now()
      found = searchTree(index, text).ids.length
      times.push(performance.now() - t)
    }
    assert.equal(found, 2000, 'Door 7 and Door 73 of every room')
    t = performance.now()
    const hidden = hiddenExcept(index, searchTree(index, 'door 40').ids)
    const isolateMs = performance.now() - t
    assert.equal(hidden.size, 100_100 - 1000 - 1000 - 100)
    const worst = Math.max(...times)
    console.log(
      `100,100 nodes: index ${indexMs.toFixed(1)} ms; search ${times.map((x) => x.toFixed(1)).join(' / ')} ms; isolate ${isolateMs.toFixed(1)} ms`,
    )
    assert.ok(worst < 100, `a search took ${worst.toFixed(1)} ms`)
  })
})

describe('live selection bound', () => {
  it('carries at most 200 ids, and only as many as fit the message size', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `${'n'.repeat(36)}-${i}`)
    assert.equal(sharedSelection(ids, 1_000_000).length, 200)
    const cut = sharedSelection(ids, 4096)
    const bytes = Buffer.byteLength(JSON.stringify({ type: 'selection', ids: cut }))
    assert.ok(bytes <= 4096, `${bytes} bytes`)
    const next = ids[cut.length] as string
    const over = Buffer.byteLength(JSON.stringify({ type: 'selection', ids: [...cut, next] }))
    assert.ok(over > 4096, 'one more id would not fit')
    assert.deepEqual(sharedSelection(['a', 'b'], 4096), ['a', 'b'])
  })
})
