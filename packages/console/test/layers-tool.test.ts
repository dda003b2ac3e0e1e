// The layers tool's bookkeeping with three.js alone (no browser, no renderer): what is added under
// a part whose layer is off (the selection's outline) leaves layer 0 at once, without a per-frame
// walk, and what is removed again is given back and forgotten.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import * as THREE from 'three'
import { LayersTool } from '../src/viewer/tools/layers.ts'
import type { ViewerContext } from '../src/viewer/tools/tool.ts'

function model(): { root: THREE.Group; steel: THREE.Mesh } {
  const root = new THREE.Group()
  const a = new THREE.Group()
  const b = new THREE.Group()
  a.name = 'A'
  b.name = 'B'
  const steel = new THREE.Mesh(new THREE.BoxGeometry(), new THREE.MeshStandardMaterial({ name: 'steel' }))
  const wood = new THREE.Mesh(new THREE.BoxGeometry(), new THREE.MeshStandardMaterial({ name: 'wood' }))
  a.add(steel)
  b.add(wood)
  root.add(a, b)
  return { root, steel }
}

describe('layers tool', () => {
  it('takes an outline added under an off part out of layer 0, and gives it back when removed', () => {
    const { root, steel } = model()
    let invalidated = 0
    const context = { model: () => root, invalidate: () => invalidated++ } as unknown as ViewerContext
    const tool = new LayersTool(context)
    tool.modelLoaded()
    tool.apply({ enabled: true, off: [{ kind: 'material', name: 'steel' }] })
    assert.equal(steel.layers.isEnabled(0), false)
    assert.equal('beforeRender' in tool, false, 'no per-frame work')
    const outline = new THREE.LineSegments()
    outline.userData.outline = true
    const before = invalidated
    steel.add(outline)
    assert.equal(outline.layers.isEnabled(0), false, 'outline added under an off part is drawn')
    assert.ok(invalidated > before, 'no redraw asked for')
    steel.remove(outline)
    assert.equal(outline.layers.isEnabled(0), true, 'removed outline still held (and its mask kept)')
    const again = new THREE.LineSegments()
    steel.add(again)
    tool.apply({ enabled: true, off: [] })
    assert.equal(steel.layers.isEnabled(0), true)
    assert.equal(again.layers.isEnabled(0), true, 'outline not given back when the layer is on again')
    steel.add(outline)
    assert.equal(outline.layers.isEnabled(0), true, 'a part back on still takes its children out')
  })
})
