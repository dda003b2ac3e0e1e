// The selection's slice of a saved view (selectedNodes, rememberSelection), without a browser.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readView } from '../src/viewer/state/index.ts'
import { restoredSelection, selectionSlice } from '../src/viewer/state/selection.ts'

describe('selection slice', () => {
  it('a written selection reads back identical, order kept', () => {
    for (const state of [
      { nodes: ['c', 'a', 'b'], remember: true },
      { nodes: [], remember: true },
      { nodes: ['x'], remember: false },
    ]) {
      assert.deepEqual(selectionSlice.read(selectionSlice.write(state)), state)
    }
  })

  it('malformed fields give the defaults, never an exception', () => {
    const odd = { selectedNodes: 'a', rememberSelection: 'yes' } as unknown as Parameters<typeof readView>[0]
    assert.deepEqual(selectionSlice.read(odd), { nodes: [], remember: false })
    const mixed = { selectedNodes: [1, 'ok', null, 'ok', 'two'] } as unknown as Parameters<typeof readView>[0]
    assert.deepEqual(selectionSlice.read(mixed).nodes, ['ok', 'two'])
  })

  it('a new configuration (the server defaults) reads as the defaults', () => {
    const created = { selectedNodes: [], rememberSelection: false }
    assert.deepEqual(readView(created).selection, selectionSlice.defaults())
  })

  it('restoring: remembered sets exactly the nodes, an empty unremembered view leaves the selection', () => {
    assert.deepEqual(restoredSelection({ nodes: [], remember: true }), [])
    assert.deepEqual(restoredSelection({ nodes: ['a', 'b'], remember: true }), ['a', 'b'])
    assert.deepEqual(restoredSelection({ nodes: ['a', 'b'], remember: false }), ['a', 'b'])
    assert.equal(restoredSelection({ nodes: [], remember: false }), null)
  })

  it('more ids than the server takes are cut at its bound', () => {
    const many = Array.from({ length: 100_005 }, (_, i) => `n${i}`)
    assert.equal(selectionSlice.read({ selectedNodes: many }).nodes.length, 100_000)
  })
})
