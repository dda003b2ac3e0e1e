// The measure slice (`enabledQuotations`, `quotationsEnabled`) and the dimensions' labels, without a
// browser: written → read back identical, malformed entries skipped, the count bounded, a new
// record's defaults read as the defaults; lengths in metres or units, angles in degrees.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { MAX_QUOTATIONS, type MeasureSettings, measureSlice } from '../src/viewer/state/measure.ts'
import type { RecordIn } from '../src/viewer/state/slice.ts'
import { angleOf, formatLength, labelOf, unitOfFile } from '../src/viewer/tools/measure-format.ts'

const distance = {
  type: 'distance' as const,
  id: 'd1',
  points: [
    [0, 0, 0],
    [1.25, 0, 0],
  ] as [number, number, number][],
}
const angle = {
  type: 'angle' as const,
  id: 'a1',
  points: [
    [1, 0, 0],
    [0, 0, 0],
    [0, 0.1, 0],
  ] as [number, number, number][],
}

describe('measure slice ↔ configuration record', () => {
  it('a written state reads back identical', () => {
    const state: MeasureSettings = { enabled: true, quotations: [distance, angle] }
    const record = measureSlice.write(state)
    assert.deepEqual(record, { quotationsEnabled: true, enabledQuotations: [distance, angle] })
    assert.deepEqual(measureSlice.read(JSON.parse(JSON.stringify(record)) as RecordIn), state)
  })

  it("a new record's defaults (the contract's) read as the defaults", () => {
    assert.deepEqual(
      measureSlice.read({ enabledQuotations: [], quotationsEnabled: false }),
      measureSlice.defaults(),
    )
    assert.deepEqual(measureSlice.read({}), measureSlice.defaults())
  })

  it('malformed fields and entries are skipped, never thrown', () => {
    const odd = {
      quotationsEnabled: 'yes',
      enabledQuotations: [
        null,
        7,
        { type: 'radius', id: 'r', points: [[0, 0, 0]] },
        { type: 'distance', id: 'short', points: [[0, 0, 0]] },
        {
          type: 'angle',
          id: 'two',
          points: [
            [0, 0, 0],
            [1, 1, 1],
          ],
        },
        {
          type: 'distance',
          id: 'nan',
          points: [
            [0, 0, 0],
            [1, 'x', 0],
          ],
        },
        {
          type: 'distance',
          points: [
            [0, 0, 0],
            [1, 0, 0],
          ],
        },
        {
          type: 'distance',
          id: 'x'.repeat(65),
          points: [
            [0, 0, 0],
            [1, 0, 0],
          ],
        },
        distance,
        {
          ...distance,
          points: [
            [9, 9, 9],
            [8, 8, 8],
          ],
        },
        angle,
      ],
    } as unknown as RecordIn
    assert.deepEqual(measureSlice.read(odd), { enabled: false, quotations: [distance, angle] })
    assert.deepEqual(measureSlice.read({ enabledQuotations: 'nope' } as unknown as RecordIn).quotations, [])
  })

  it(`at most ${MAX_QUOTATIONS} dimensions are read`, () => {
    const many = Array.from({ length: MAX_QUOTATIONS + 50 }, (_, i) => ({ ...distance, id: `d${i}` }))
    const read = measureSlice.read({ enabledQuotations: many })
    assert.equal(read.quotations.length, MAX_QUOTATIONS)
    assert.equal(read.quotations.at(-1)?.id, `d${MAX_QUOTATIONS - 1}`)
  })
})

describe('dimension labels', () => {
  it('metres from 1 m, millimetres below, units for unitless formats', () => {
    assert.equal(formatLength(2, 'm'), '2.000 m')
    assert.equal(formatLength(1.2504, 'm'), '1.250 m')
    assert.equal(formatLength(0.012, 'm'), '12.0 mm')
    assert.equal(formatLength(0.99996, 'm'), '1.000 m')
    assert.equal(formatLength(0.9994, 'm'), '999.4 mm')
    assert.equal(formatLength(1.25, 'u'), '1.250 u')
    assert.equal(labelOf(distance, 'm'), '1.250 m')
    assert.equal(labelOf(distance, 'u'), '1.250 u')
  })

  it('angles in degrees at the middle point', () => {
    assert.equal(labelOf(angle, 'm'), '90.0°')
    assert.equal(angleOf([1, 0, 0], [0, 0, 0], [1, 1, 0]).toFixed(6), '45.000000')
    assert.equal(angleOf([1, 0, 0], [0, 0, 0], [0, 0, 0]), 0)
  })

  it('the unit follows the source format', () => {
    for (const name of ['a.glb', 'b.GLTF', 'c.ifc', 'd.step', 'e.stp', 'f.iges', 'g.igs', 'h.brep'])
      assert.equal(unitOfFile(name), 'm', name)
    for (const name of ['a.stl', 'b.obj', 'c.ply', 'd.fbx', 'e.3mf', 'f.dae', 'g.3ds', 'noext'])
      assert.equal(unitOfFile(name), 'u', name)
  })
})
