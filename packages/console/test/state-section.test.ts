// The section slice (`enabledClippingPlanes`, `clippingPlanesEnabled`) without a browser: written →
// read back identical, malformed → defaults, the bounds and the normalisation of a plane.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readView } from '../src/viewer/state/index.ts'
import { DEFAULT_CAP, MAX_PLANES, type SectionSettings, sectionSlice } from '../src/viewer/state/section.ts'

type Record = Parameters<typeof sectionSlice.read>[0]

const full: SectionSettings = {
  enabled: true,
  planes: [
    { id: 'a', normal: [0, 0, -1], constant: 0.25, enabled: true, capColor: '#112233' },
    { id: 'b', normal: [0.6, 0.8, 0], constant: -1.5, enabled: false, capColor: DEFAULT_CAP },
  ],
  box: { id: 'box', min: [-1, -2, -3], max: [1, 2, 3], enabled: true, capColor: '#abcdef' },
}

describe('section slice ↔ configuration record', () => {
  it('planes and a box written read back identical, through JSON too', () => {
    const written = sectionSlice.write(full)
    assert.deepEqual(sectionSlice.read(written), full)
    assert.deepEqual(sectionSlice.read(JSON.parse(JSON.stringify(written)) as Record), full)
    assert.equal(written.clippingPlanesEnabled, true)
    assert.deepEqual(
      (written.enabledClippingPlanes as { type: string }[]).map((e) => e.type),
      ['plane', 'plane', 'box'],
    )
  })

  it('the defaults read back as defaults, and a new configuration reads as the defaults', () => {
    const defaults = sectionSlice.defaults()
    assert.deepEqual(sectionSlice.read(sectionSlice.write(defaults)), defaults)
    assert.deepEqual(sectionSlice.read({ enabledClippingPlanes: [], clippingPlanesEnabled: false }), defaults)
    assert.deepEqual(readView({}).section, defaults)
  })

  it('malformed records give defaults, never an exception', () => {
    for (const odd of [
      { enabledClippingPlanes: 'x', clippingPlanesEnabled: 'yes' },
      {
        enabledClippingPlanes: [
          null,
          3,
          [1],
          { type: 'plane' },
          { type: 'plane', normal: [0, 0, 0], constant: 1 },
        ],
      },
      { enabledClippingPlanes: [{ type: 'plane', normal: [1, 'x', 0], constant: 1 }] },
      { enabledClippingPlanes: [{ type: 'plane', normal: [1, 0, 0], constant: Number.NaN }] },
      { enabledClippingPlanes: [{ type: 'box', min: [1, 1, 1], max: [0, 0, 0] }] },
    ] as Record[]) {
      assert.deepEqual(sectionSlice.read(odd), sectionSlice.defaults(), JSON.stringify(odd))
    }
  })

  it('a normal is scaled to unit length with its constant; missing id, enabled and colour get defaults', () => {
    const s = sectionSlice.read({
      enabledClippingPlanes: [{ type: 'plane', normal: [0, 0, 2], constant: 3, capColor: 'red' }],
      clippingPlanesEnabled: true,
    })
    assert.deepEqual(s.planes, [
      { id: 'plane-1', normal: [0, 0, 1], constant: 1.5, enabled: true, capColor: DEFAULT_CAP },
    ])
  })

  it('keeps six planes and one box; other types, extra planes and extra boxes are dropped', () => {
    const plane = (i: number) => ({ type: 'plane', id: `p${i}`, normal: [1, 0, 0], constant: i })
    const box = (id: string) => ({ type: 'box', id, min: [0, 0, 0], max: [1, 1, 1] })
    const s = sectionSlice.read({
      enabledClippingPlanes: [
        { type: 'cylinder', radius: 2 },
        box('first'),
        ...Array.from({ length: 9 }, (_, i) => plane(i)),
        plane(0),
        box('second'),
      ],
    })
    assert.equal(s.planes.length, MAX_PLANES)
    assert.deepEqual(
      s.planes.map((p) => p.id),
      ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'],
    )
    assert.equal(s.box?.id, 'first')
    assert.equal(s.enabled, false)
  })

  it('drops a plane whose constant overflows when the normal is normalised (it would be written as null)', () => {
    const s = sectionSlice.read({
      clippingPlanesEnabled: true,
      enabledClippingPlanes: [
        { type: 'plane', id: 'huge', normal: [1e-9, 0, 0], constant: 1e300 },
        { type: 'plane', id: 'fine', normal: [0, 2, 0], constant: 4 },
      ],
    })
    assert.deepEqual(
      s.planes.map((p) => [p.id, p.constant]),
      [['fine', 2]],
    )
    const again = sectionSlice.read(JSON.parse(JSON.stringify(sectionSlice.write(s))))
    assert.deepEqual(again.planes, s.planes)
  })
})
