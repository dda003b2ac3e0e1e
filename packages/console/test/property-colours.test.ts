// Model properties without a browser: values in words, the names a search offers, the conditions
// made from what was typed, a query carried in the address (?find=), the legend of "Colour by
// value" (categories, ranges, parts without the value) and the engine's part colours on three.js
// meshes (painted copies, the nearest coloured node deciding, own materials back after).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import * as THREE from 'three'
import { legendOf, OTHER, PALETTE, RAMP, rampColour } from '../src/screens/property-colours.ts'
import {
  type Catalogue,
  conditionOf,
  exactValue,
  learnNames,
  orderedGroups,
  queryFromParam,
  queryParam,
  shownValue,
} from '../src/screens/property-values.ts'
import { PartColours } from '../src/viewer/part-colours.ts'
import type { ViewerContext } from '../src/viewer/tools/tool.ts'

describe('property values', () => {
  it('shows Yes/No, locale numbers with the exact value kept, and IFC first', () => {
    assert.equal(shownValue(true), 'Yes')
    assert.equal(shownValue(false), 'No')
    assert.equal(shownValue('REI60'), 'REI60')
    const n = 1234.56789
    assert.equal(shownValue(n), new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 }).format(n))
    assert.equal(exactValue(n), '1234.56789')
    assert.equal(exactValue(1.5), shownValue(1.5) === '1.5' ? undefined : '1.5')
    assert.equal(exactValue('text'), undefined)
    const groups = { extras: { a: 1 }, IFC: { class: 'IfcWall' }, Mesh: { name: 'm' } }
    assert.deepEqual(
      orderedGroups(groups).map(([g]) => g),
      ['IFC', 'extras', 'Mesh'],
    )
  })

  it('learns names and kinds (mixed kinds become text), keeping the catalogue when nothing is new', () => {
    const empty: Catalogue = new Map()
    const one = learnNames(empty, { a: { extras: { width: 1.5, fireRating: 'REI60', external: true } } })
    assert.deepEqual(
      [...(one.get('extras') ?? [])],
      [
        ['width', 'number'],
        ['fireRating', 'text'],
        ['external', 'boolean'],
      ],
    )
    assert.equal(learnNames(one, { b: { extras: { width: 2 } } }), one)
    const mixed = learnNames(one, { c: { extras: { width: 'wide' } } })
    assert.equal(mixed.get('extras')?.get('width'), 'text')
    assert.equal(one.get('extras')?.get('width'), 'number', 'the old catalogue is not changed')
  })

  it('makes conditions: numbers for numeric properties and comparisons, Yes/No for booleans, exists', () => {
    const catalogue = learnNames(new Map(), {
      a: { extras: { width: 1.5, fireRating: 'x', external: true } },
    })
    const made = (group: string, name: string, op: string, value: string) =>
      conditionOf({ group, name, op: op as 'eq', value }, catalogue)
    assert.deepEqual(made('extras', 'fireRating', 'eq', ' REI60 '), {
      ok: true,
      condition: { group: 'extras', name: 'fireRating', op: 'eq', value: 'REI60' },
    })
    assert.deepEqual(made('extras', 'width', 'eq', '1,5'), {
      ok: true,
      condition: { group: 'extras', name: 'width', op: 'eq', value: 1.5 },
    })
    assert.deepEqual(made('extras', 'external', 'ne', 'No'), {
      ok: true,
      condition: { group: 'extras', name: 'external', op: 'ne', value: false },
    })
    assert.deepEqual(made('extras', 'width', 'exists', 'ignored'), {
      ok: true,
      condition: { group: 'extras', name: 'width', op: 'exists' },
    })
    assert.equal(made('extras', 'width', 'gt', 'wide').ok, false)
    assert.equal(made('', 'width', 'eq', '1').ok, false)
    assert.equal(made('extras', 'width', 'eq', '  ').ok, false)
  })
})

describe('a query in the address (?find=)', () => {
  it('goes there and back as JSON; anything else is no query', () => {
    const query = { group: 'Pset & Co', name: 'Fire/Rating?', op: 'eq' as const, value: 'REI 60' }
    const param = queryParam(query)
    assert.ok(!/[&?/ ]/.test(param), param)
    assert.deepEqual(queryFromParam(new URLSearchParams(`find=${param}`).get('find')), query)
    assert.equal(JSON.parse(decodeURIComponent(queryParam({ ...query, op: 'exists' }))).value, '')
    for (const bad of [null, '', 'nope', '{}', '[1]', 'null', '{"group":"g","name":"n","op":"like"}'])
      assert.equal(queryFromParam(bad), null, String(bad))
    assert.deepEqual(queryFromParam('{"group":"g","name":"n","op":"exists"}'), {
      group: 'g',
      name: 'n',
      op: 'exists',
      value: '',
    })
  })
})

describe('colour by value', () => {
  it('text: one colour per value, commonest first, past nine the rest as Other values', () => {
    const legend = legendOf(
      new Map<string, string | undefined>([
        ['a', 'REI60'],
        ['b', 'REI30'],
        ['c', 'REI60'],
        ['d', undefined],
      ]),
    )
    assert.equal(legend.kind, 'values')
    assert.deepEqual(
      legend.entries.map((e) => [e.label, e.colour, e.ids]),
      [
        ['REI60', PALETTE[0], ['a', 'c']],
        ['REI30', PALETTE[1], ['b']],
      ],
    )
    assert.deepEqual(legend.missing, ['d'])
    const many = legendOf(new Map(Array.from({ length: 12 }, (_, i) => [`n${i}`, `v${i}`])))
    assert.equal(many.entries.length, 9)
    assert.equal(many.entries.at(-1)?.label, 'Other values (4)')
    assert.equal(many.entries.at(-1)?.colour, OTHER)
    assert.equal(many.entries.at(-1)?.ids.length, 4)
    assert.deepEqual(legendOf(new Map([['x', true]])).entries[0]?.label, 'Yes')
  })

  it('numbers: a ramp, one entry per value when few, else five equal ranges', () => {
    const few = legendOf(
      new Map([
        ['a', 1.5],
        ['b', 2.5],
        ['c', 1.5],
      ]),
    )
    assert.equal(few.kind, 'ranges')
    assert.deepEqual(
      few.entries.map((e) => [e.colour, e.ids]),
      [
        [RAMP[0], ['a', 'c']],
        [RAMP[4], ['b']],
      ],
    )
    const many = legendOf(new Map(Array.from({ length: 11 }, (_, i) => [`n${i}`, i])))
    assert.equal(many.entries.length, 5)
    assert.deepEqual(
      many.entries.map((e) => e.ids.length),
      [2, 2, 2, 2, 3],
    )
    assert.equal(many.entries[0]?.label, `${shownValue(0)} – ${shownValue(2)}`)
    assert.equal(rampColour(0.5), RAMP[2])
  })
})

describe('part colours in the engine', () => {
  it('paints copies, the nearest coloured node deciding, and puts the own materials back', () => {
    const own = new THREE.MeshStandardMaterial({ color: 0x808080 })
    const root = new THREE.Group()
    const wall = new THREE.Group()
    wall.userData.tesseraId = 'wall'
    const door = new THREE.Mesh(new THREE.BoxGeometry(), own)
    door.userData.tesseraId = 'door'
    const panel = new THREE.Mesh(new THREE.BoxGeometry(), own)
    wall.add(door, panel)
    root.add(wall)
    const meshes: Record<string, THREE.Mesh[]> = { wall: [door, panel], door: [door] }
    let swaps = 0
    const context = {
      meshesOf: (id: string) => meshes[id] ?? [],
      changeMaterials: (swap: () => void) => {
        swaps++
        swap()
      },
    } as unknown as ViewerContext
    const colours = new PartColours(context)
    colours.set(
      new Map([
        ['door', '#e15759'],
        ['wall', '#4e79a7'],
      ]),
    )
    assert.notEqual(door.material, own)
    assert.equal(`#${(door.material as THREE.MeshStandardMaterial).color.getHexString()}`, '#e15759')
    assert.equal(`#${(panel.material as THREE.MeshStandardMaterial).color.getHexString()}`, '#4e79a7')
    assert.equal(own.color.getHex(), 0x808080, 'the own material is not changed')
    assert.deepEqual(colours.snapshot(), { door: '#e15759', wall: '#4e79a7' })
    colours.set(null)
    assert.equal(door.material, own)
    assert.equal(panel.material, own)
    assert.deepEqual(colours.snapshot(), {})
    colours.set(null)
    assert.equal(swaps, 2, 'clearing nothing swaps nothing')
    // The engine's end (clear, without a swap) puts the own materials back too.
    colours.set(new Map([['door', '#59a14f']]))
    assert.notEqual(door.material, own)
    colours.clear()
    assert.equal(door.material, own)
    assert.equal(swaps, 3)
  })
})
