// The mapping between the configuration record and the viewer's typed view state, without a
// browser: every slice reads what it writes, tolerates malformed records, and no two slices write
// the same record field.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { defaultView, readView, SLICES, writeView } from '../src/viewer/state/index.ts'

describe('view state ↔ configuration record', () => {
  it('a written view reads back identical', () => {
    const view = defaultView()
    view.camera.pose = { position: [1, 2, 3], target: [0, 0.5, 0] }
    view.visibility.hidden = ['a', 'b']
    view.selection.nodes = ['c']
    assert.deepEqual(readView(writeView(view)), view)
  })

  it('the defaults read back as defaults', () => {
    assert.deepEqual(readView(writeView(defaultView())), defaultView())
  })

  it('a malformed record gives defaults, never an exception', () => {
    const odd = {
      cameraPosition: [1, 'x', 3, 4, 5, 6],
      modifiers: [null, 3, { type: 'hidden', nodes: 'nope' }],
      selectedNodes: [1, 'ok'],
    } as unknown as Parameters<typeof readView>[0]
    const view = readView(odd)
    assert.equal(view.camera.pose, null)
    assert.deepEqual(view.visibility.hidden, [])
    assert.deepEqual(view.selection.nodes, ['ok'])
  })

  it('no two slices write the same record field', () => {
    const owners = new Map<string, string[]>()
    for (const [name, slice] of Object.entries(SLICES)) {
      for (const field of Object.keys((slice.write as (s: unknown) => object)(slice.defaults()))) {
        owners.set(field, [...(owners.get(field) ?? []), name])
      }
    }
    for (const [field, by] of owners) assert.equal(by.length, 1, `${field} is written by ${by.join(', ')}`)
  })
})
