// The camera's slice without a browser: what it writes reads back identical, the spec's values
// (cameraType null, a preset index, an up vector, zNear's default) read as documented, malformed
// fields give the defaults.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  AUTOMATIC_NEAR,
  type CameraSettings,
  cameraSlice,
  FOV_PRESETS,
  UP_VECTORS,
} from '../src/viewer/state/camera.ts'
import type { RecordIn } from '../src/viewer/state/slice.ts'

const set: CameraSettings = {
  pose: { position: [1, 2, 3], target: [0, 0.5, 0] },
  projection: 'orthographic',
  fovIndex: 3,
  up: 'Z+',
  near: 2.5,
  disabled: true,
}

describe('camera slice ↔ configuration record', () => {
  it('written → read back identical, for every up vector and preset', () => {
    assert.deepEqual(cameraSlice.read(cameraSlice.write(set)), set)
    for (const up of UP_VECTORS)
      for (let fovIndex = 0; fovIndex < FOV_PRESETS.length; fovIndex++) {
        const s = { ...set, up, fovIndex, projection: 'perspective' as const, near: null }
        assert.deepEqual(cameraSlice.read(cameraSlice.write(s)), s)
      }
  })

  it('writes the documented record values', () => {
    assert.deepEqual(cameraSlice.write(set), {
      cameraPosition: [1, 2, 3, 0, 0.5, 0],
      cameraType: 'orthographic',
      cameraFoVIndex: 3,
      upVector: 'Z+',
      zNear: 2.5,
      disableCamera: true,
    })
    assert.equal(cameraSlice.write(cameraSlice.defaults()).zNear, AUTOMATIC_NEAR)
  })

  it("a new configuration's defaults read as the defaults", () => {
    const fresh: RecordIn = {
      cameraPosition: [],
      cameraType: null,
      cameraFoVIndex: 0,
      upVector: 'Y+',
      zNear: 0.1,
      disableCamera: false,
    }
    assert.deepEqual(cameraSlice.read(fresh), cameraSlice.defaults())
    assert.deepEqual(cameraSlice.read(cameraSlice.write(cameraSlice.defaults())), cameraSlice.defaults())
    assert.deepEqual(cameraSlice.read({}), cameraSlice.defaults())
  })

  it('other clients’ spellings: cameraType 1 or "Orthographic" is orthographic, 0 and others perspective', () => {
    assert.equal(cameraSlice.read({ cameraType: 1 }).projection, 'orthographic')
    assert.equal(cameraSlice.read({ cameraType: 'Orthographic' }).projection, 'orthographic')
    assert.equal(cameraSlice.read({ cameraType: 0 }).projection, 'perspective')
    assert.equal(cameraSlice.read({ cameraType: 'fisheye' }).projection, 'perspective')
  })

  it('malformed fields give the defaults, never an exception', () => {
    const odd = {
      cameraPosition: [1, 'x', 3, 4, 5, 6],
      cameraType: { kind: 'orthographic' },
      cameraFoVIndex: 99,
      upVector: 'up',
      zNear: -4,
      disableCamera: 'yes',
    } as unknown as RecordIn
    assert.deepEqual(cameraSlice.read(odd), cameraSlice.defaults())
    assert.equal(cameraSlice.read({ cameraFoVIndex: 1.5 }).fovIndex, 0)
    assert.equal(cameraSlice.read({ cameraFoVIndex: -1 }).fovIndex, 0)
    assert.equal(cameraSlice.read({ zNear: Number.POSITIVE_INFINITY }).near, null)
    assert.equal(cameraSlice.read({ zNear: 1e9 }).near, null, 'beyond MAX_NEAR')
  })
})
