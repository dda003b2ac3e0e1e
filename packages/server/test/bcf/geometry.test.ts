// BCF's geometry against Tessera's, without a server: the Y-up ↔ Z-up turn with an origin shift,
// cameras (perspective and orthographic, Tessera's own and another tool's unit directions), planes
// and the six planes of a box, and the GUIDs derived from record IDs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  boxFromPlanes,
  boxToBcf,
  cameraFromBcf,
  cameraToBcf,
  fromBcf,
  nearestFovIndex,
  planeFromBcf,
  planeToBcf,
  TARGET_DISTANCE,
  toBcf,
} from '../../src/modules/bcf/geometry.ts'
import { derivedGuid, GUID_PATTERN, normalGuid } from '../../src/modules/bcf/guids.ts'
import type { Vec3 } from '../../src/modules/bcf/model.ts'

function close(actual: number[], expected: number[]): void {
  for (const [i, v] of actual.entries()) {
    assert.ok(Math.abs(v - (expected[i] ?? Number.NaN)) < 1e-9, `${actual} ≠ ${expected}`)
  }
}

test('Y up to Z up and back, with the shift of a model moved to the origin', () => {
  assert.deepEqual(toBcf([1, 2, 3]), [1, -3, 2])
  assert.deepEqual(fromBcf(toBcf([1, 2, 3])), [1, 2, 3])
  const shift: Vec3 = [512000, 6100000, 10]
  assert.deepEqual(toBcf([1, 2, 3], shift), [512001, 6099997, 12])
  close(fromBcf(toBcf([1, 2, 3], shift), shift), [1, 2, 3])
})

test("Tessera's cameras survive the trip; the up vector is square to the direction", () => {
  for (const projection of ['perspective', 'orthographic'] as const) {
    for (const fovIndex of [0, 1, 2, 3, 4]) {
      const pose = { position: [8, 5, 9] as Vec3, target: [1, 1, -1] as Vec3, projection, fovIndex }
      const camera = cameraToBcf(pose, 1.5, [10, 20, 30])
      const d = camera.direction
      assert.ok(Math.abs(d[0] * camera.up[0] + d[1] * camera.up[1] + d[2] * camera.up[2]) < 1e-9)
      const back = cameraFromBcf(camera, [10, 20, 30])
      close(back.position, pose.position)
      close(back.target, pose.target)
      assert.deepEqual([back.projection, back.fovIndex], [projection, fovIndex])
    }
  }
  // Straight down: the up vector cannot be Z; it is Y.
  assert.deepEqual(
    cameraToBcf({ position: [0, 10, 0], target: [0, 0, 0], projection: 'perspective', fovIndex: 0 }, 1).up,
    [0, 1, 0],
  )
})

test("another tool's unit direction: the target 10 m ahead; an orthographic scale picks the nearest preset", () => {
  const perspective = {
    kind: 'perspective' as const,
    position: [0, 0, 0] as Vec3,
    direction: [1, 0, 0] as Vec3,
    up: [0, 0, 1] as Vec3,
    fieldOfView: 58,
    viewToWorldScale: 0,
    aspectRatio: 1,
  }
  const pose = cameraFromBcf(perspective)
  close(pose.target, [TARGET_DISTANCE, 0, 0])
  assert.equal(pose.fovIndex, nearestFovIndex(58))
  assert.equal(nearestFovIndex(58), 2) // 60°
  const ortho = cameraFromBcf({ ...perspective, kind: 'orthographic', viewToWorldScale: 8 })
  assert.equal(ortho.projection, 'orthographic')
  // 8 m seen at the target, with the default preset (45°): 8 / (2 tan 22.5°) = 9.66 m away.
  close([Math.hypot(...ortho.target)], [8 / (2 * Math.tan(Math.PI / 8))])
})

test('planes: BCF direction points at what is cut; a box is six planes and reads back as one', () => {
  const plane = { normal: [0, -1, 0] as Vec3, constant: 2.5 }
  const bcf = planeToBcf(plane)
  close(bcf.direction, [0, 0, 1]) // keeps y ≤ 2.5 (Y up): cuts above, Z up in BCF
  close(bcf.location, [0, 0, 2.5])
  const back = planeFromBcf(bcf) ?? assert.fail('no plane')
  close([...back.normal, back.constant], [0, -1, 0, 2.5])
  assert.equal(planeFromBcf({ location: [0, 0, 0], direction: [0, 0, 0] }), null)
  const box = { min: [-1, -0.5, -6] as Vec3, max: [6, 3, 1] as Vec3 }
  const six = boxToBcf(box, [5, 5, 5]).map((p) => planeFromBcf(p, [5, 5, 5]) ?? assert.fail('no plane'))
  const found = boxFromPlanes(six) ?? assert.fail('no box')
  close([...found.min, ...found.max], [...box.min, ...box.max])
  assert.equal(boxFromPlanes(six.slice(0, 5)), null)
  assert.equal(boxFromPlanes([...six.slice(0, 5), { normal: [0.6, 0.8, 0], constant: 1 }]), null)
})

test('GUIDs: derived ones are stable, distinct per kind and BCF-shaped; read ones are normalised', () => {
  const a = derivedGuid('topic', '674a1f3c9b1e2d3f4a5b6c7d')
  assert.match(a, GUID_PATTERN)
  assert.equal(a, derivedGuid('topic', '674a1f3c9b1e2d3f4a5b6c7d'))
  assert.notEqual(a, derivedGuid('viewpoint', '674a1f3c9b1e2d3f4a5b6c7d'))
  assert.equal(normalGuid('{A68472BB-CE08-4FFF-9BBD-24366B06480A}'), 'a68472bb-ce08-4fff-9bbd-24366b06480a')
  assert.equal(normalGuid('not-a-guid'), null)
})
