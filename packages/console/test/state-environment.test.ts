// The environment slice without a browser: written → read back identical, malformed → defaults,
// the defaults of a new configuration (the server's) read as the slice's defaults.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { type EnvironmentSettings, environmentSlice } from '../src/viewer/state/environment.ts'
import type { RecordIn } from '../src/viewer/state/slice.ts'

describe('environment slice ↔ configuration record', () => {
  it('a written state reads back identical', () => {
    const state: EnvironmentSettings = {
      enabled: true,
      file: 'neutral',
      brightness: 2.5,
      orientation: 135,
      skybox: true,
      ibl: true,
      renderMode: 'shaded-edges',
    }
    const record = environmentSlice.write(state)
    assert.deepEqual(record, {
      environmentEnabled: true,
      environmentFile: 'neutral',
      environmentBrightness: 2.5,
      environmentOrientation: 135,
      skyboxEnabled: true,
      iblEnabled: true,
      renderMode: 'shaded-edges',
    })
    assert.deepEqual(environmentSlice.read(record), state)
    for (const renderMode of ['phong', 'flat', 'wireframe'] as const)
      assert.equal(
        environmentSlice.read(environmentSlice.write({ ...state, renderMode })).renderMode,
        renderMode,
      )
  })

  it("a new configuration's defaults (the server's) read as the defaults", () => {
    const fresh: RecordIn = {
      environmentEnabled: false,
      environmentFile: null,
      environmentBrightness: 1,
      environmentOrientation: 0,
      skyboxEnabled: false,
      iblEnabled: false,
      renderMode: 'phong',
    }
    assert.deepEqual(environmentSlice.read(fresh), environmentSlice.defaults())
    assert.deepEqual(environmentSlice.read({}), environmentSlice.defaults())
    assert.deepEqual(
      environmentSlice.read(environmentSlice.write(environmentSlice.defaults())),
      environmentSlice.defaults(),
    )
  })

  it('malformed or foreign values give defaults (or the nearest bound), never an exception', () => {
    const odd = {
      environmentEnabled: 'yes',
      environmentFile: 'https://example.com/studio.hdr',
      environmentBrightness: Number.NaN,
      environmentOrientation: 'north',
      skyboxEnabled: 1,
      iblEnabled: null,
      renderMode: 'toon',
    } as unknown as RecordIn
    assert.deepEqual(environmentSlice.read(odd), environmentSlice.defaults())
    const bounded = environmentSlice.read({
      environmentBrightness: 9,
      environmentOrientation: -90,
      renderMode: 'shaded',
    })
    assert.equal(bounded.brightness, 4)
    assert.equal(bounded.orientation, 270)
    assert.equal(bounded.renderMode, 'phong')
    assert.equal(environmentSlice.read({ environmentBrightness: -1 }).brightness, 0)
    assert.equal(environmentSlice.read({ environmentOrientation: 720.5 }).orientation, 0.5)
  })
})
