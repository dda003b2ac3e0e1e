// The exploded view's, x-ray's and layers' slices of the configuration record, without a browser:
// written → read back identical, malformed → defaults, a new configuration's defaults → defaults.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { explodeSlice } from '../src/viewer/state/explode.ts'
import { defaultView, readView, writeView } from '../src/viewer/state/index.ts'
import { layersSlice, MAX_LAYERS_OFF } from '../src/viewer/state/layers.ts'
import type { RecordIn } from '../src/viewer/state/slice.ts'
import { xraySlice } from '../src/viewer/state/xray.ts'

/** What the server gives a configuration created without these fields (contract/configuration.ts). */
const NEW_RECORD: RecordIn = {
  explodedViewEnabled: false,
  explodedViewDistance: null,
  transparencyEffectParameters: { alphaCoefficient: 0.5, _id: 'x' },
  enabledEffects: [],
  layersEnabled: false,
  enabledLayers: [],
}

describe('explode, x-ray and layers ↔ configuration record', () => {
  it('a written view reads back identical', () => {
    const view = defaultView()
    view.explode = { enabled: true, distance: 0.35 }
    view.xray = { enabled: true, opacity: 0.2, keep: ['a', 'b'], others: [{ type: 'bloom', strength: 2 }] }
    view.layers = {
      enabled: true,
      off: [
        { kind: 'storey', name: 'Level 1' },
        { kind: 'material', name: 'glass' },
      ],
    }
    assert.deepEqual(readView(writeView(view)), view)
  })

  it('the record shapes are the documented ones', () => {
    assert.deepEqual(explodeSlice.write({ enabled: false, distance: 0 }), {
      explodedViewEnabled: false,
      explodedViewDistance: null,
    })
    assert.deepEqual(xraySlice.write({ enabled: true, opacity: 0.3, keep: ['n1'], others: [] }), {
      transparencyEffectParameters: { alphaCoefficient: 0.3 },
      enabledEffects: [{ type: 'xray', keep: ['n1'] }],
    })
    assert.deepEqual(layersSlice.write({ enabled: true, off: [{ kind: 'class', name: 'IfcWall' }] }), {
      layersEnabled: true,
      enabledLayers: [{ kind: 'class', name: 'IfcWall', visible: false }],
    })
  })

  it('a new configuration reads as the defaults', () => {
    assert.deepEqual(explodeSlice.read(NEW_RECORD), explodeSlice.defaults())
    assert.deepEqual(xraySlice.read(NEW_RECORD), xraySlice.defaults())
    assert.deepEqual(layersSlice.read(NEW_RECORD), layersSlice.defaults())
    assert.deepEqual(readView(writeView(defaultView())).xray, xraySlice.defaults())
  })

  it('a malformed record gives defaults, never an exception', () => {
    const odd = {
      explodedViewEnabled: 'yes',
      explodedViewDistance: 'far',
      transparencyEffectParameters: { alphaCoefficient: 7 },
      enabledEffects: 'xray',
      layersEnabled: 1,
      enabledLayers: [null, 3, { kind: 'planet', name: 'Mars', visible: false }, { kind: 'group', name: 2 }],
    } as unknown as RecordIn
    assert.deepEqual(explodeSlice.read(odd), explodeSlice.defaults())
    assert.deepEqual(xraySlice.read(odd), xraySlice.defaults())
    assert.deepEqual(layersSlice.read(odd), layersSlice.defaults())
    assert.deepEqual(xraySlice.read({ transparencyEffectParameters: null }), xraySlice.defaults())
  })

  it('reads other clients tolerantly: distances clamped, shown layers skipped, other effects kept', () => {
    assert.equal(explodeSlice.read({ explodedViewEnabled: true, explodedViewDistance: 4 }).distance, 1)
    assert.equal(explodeSlice.read({ explodedViewEnabled: true, explodedViewDistance: -1 }).distance, 0)
    const layers = layersSlice.read({
      layersEnabled: true,
      enabledLayers: [
        { kind: 'group', name: 'Shown', visible: true },
        { kind: 'group', name: 'Hidden', visible: false },
      ],
    })
    assert.deepEqual(layers.off, [{ kind: 'group', name: 'Hidden' }])
    const xray = xraySlice.read({ enabledEffects: [{ type: 'bloom' }, { type: 'xray', keep: ['k', 5] }] })
    assert.deepEqual(xray, { enabled: true, opacity: 0.5, keep: ['k'], others: [{ type: 'bloom' }] })
    assert.deepEqual(xraySlice.write(xray).enabledEffects, [{ type: 'xray', keep: ['k'] }, { type: 'bloom' }])
  })

  it('keeps enabledEffects within the server bound of 10,000 entries with many other clients', () => {
    const others = Array.from({ length: 10_000 }, (_, i) => ({ type: 'bloom', i }))
    const written = xraySlice.write({ enabled: true, opacity: 0.4, keep: [], others })
    const effects = written.enabledEffects as unknown[]
    assert.equal(effects.length, 10_000)
    assert.deepEqual(effects[0], { type: 'xray', keep: [] })
    assert.equal(xraySlice.read(written).enabled, true)
  })

  it('layers off: each (kind, name) once, at most MAX_LAYERS_OFF, read and written', () => {
    const steel = { kind: 'material', name: 'steel', visible: false }
    const many = Array.from({ length: MAX_LAYERS_OFF + 500 }, (_, i) => ({
      kind: 'group',
      name: `g${i}`,
      visible: false,
    }))
    const read = layersSlice.read({
      layersEnabled: true,
      enabledLayers: [steel, steel, { ...steel, kind: 'group' }, ...many],
    })
    assert.equal(read.off.length, MAX_LAYERS_OFF)
    assert.deepEqual(read.off.slice(0, 3), [
      { kind: 'material', name: 'steel' },
      { kind: 'group', name: 'steel' },
      { kind: 'group', name: 'g0' },
    ])
    const twice = [...read.off, ...read.off, { kind: 'class' as const, name: 'IfcWall' }]
    const written = layersSlice.write({ enabled: true, off: twice }).enabledLayers as unknown[]
    assert.equal(written.length, MAX_LAYERS_OFF)
  })
})
