// IFC model properties (pipeline/importers/ifc-properties.ts) read through web-ifc: the hand-written
// house-properties.ifc (millimetres, a typed wall with every kind of property) gives each product
// its attributes, property and quantity sets, materials and classifications, in SI units; other
// cases are IFC text written here: IFC2x3 names and imperial units, the material and
// classification shapes, the bounds, and damaged references (skipped, never thrown).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { before, describe, test } from 'node:test'
import { getBounds } from '@gltf-transform/functions'
import { IFCPRODUCT, IfcAPI, LogLevel } from 'web-ifc'
import { importIfc } from '../../src/modules/conversion/pipeline/importers/ifc.ts'
import { ifcProperties } from '../../src/modules/conversion/pipeline/importers/ifc-properties.ts'
import type { NodeProperties } from '../../src/modules/conversion/pipeline/properties.ts'

const HOUSE = new Uint8Array(
  readFileSync(path.join(import.meta.dirname, '../fixtures/conversion/house-properties.ifc')),
)
const SOUTH_WALL = 67
const EAST_WALL = 80
const SLAB = 90

let api: IfcAPI

before(async () => {
  api = new IfcAPI()
  await api.Init(undefined, true)
  api.SetLogLevel(LogLevel.LOG_LEVEL_OFF)
})

interface Read {
  properties: Map<number, NodeProperties>
  truncated: string[]
}

/** Opens the model, reads the properties of `ids` (else of every IfcProduct), closes it. */
function read(bytes: Uint8Array, ids?: number[]): Read {
  const modelID = api.OpenModel(bytes)
  assert.ok(modelID >= 0, 'web-ifc opens the model')
  try {
    const products = api.GetLineIDsWithType(modelID, IFCPRODUCT, true)
    const all = [...products]
    ;(products as { delete?: () => void }).delete?.()
    const truncated: string[] = []
    const properties = ifcProperties(api, modelID, ids ?? all, (what) => truncated.push(what))
    return { properties, truncated }
  } finally {
    api.CloseModel(modelID)
  }
}

/**
 * An IFC file around `data` (STEP lines), in metres and radians unless `units` says otherwise: the
 * project is assigned the unit lines no other unit line refers to (a foot, not the metre it is in).
 */
function ifcFile(data: string[], options: { schema?: string; units?: string[] } = {}): Uint8Array {
  const units = options.units ?? [
    '#1=IFCSIUNIT(*,.LENGTHUNIT.,$,.METRE.);',
    '#2=IFCSIUNIT(*,.PLANEANGLEUNIT.,$,.RADIAN.);',
  ]
  const referenced = new Set(units.flatMap((line) => line.slice(line.indexOf('=')).match(/#\d+/g) ?? []))
  const unitIds = units.map((line) => line.slice(0, line.indexOf('='))).filter((id) => !referenced.has(id))
  const text = [
    'ISO-10303-21;',
    'HEADER;',
    "FILE_DESCRIPTION((''),'2;1');",
    "FILE_NAME('generated.ifc','2025-01-01T00:00:00',(''),(''),'','','');",
    `FILE_SCHEMA(('${options.schema ?? 'IFC4'}'));`,
    'ENDSEC;',
    'DATA;',
    ...units,
    `#9=IFCUNITASSIGNMENT((${unitIds.join(',')}));`,
    "#10=IFCPROJECT('0YvctVUKr0kugbFTf53O9L',$,'Project',$,$,$,$,$,#9);",
    ...data,
    'ENDSEC;',
    'END-ISO-10303-21;',
    '',
  ]
  return new TextEncoder().encode(text.join('\n'))
}

/** An IfcBuildingElementProxy line, the same in IFC2x3 and IFC4 (nine attributes). */
function proxy(id: number, name: string): string {
  return `#${id}=IFCBUILDINGELEMENTPROXY('${guid(id)}',$,'${name}',$,$,$,$,$,$);`
}

/** A 22-character IFC GlobalId, distinct per line. */
function guid(id: number): string {
  return `0${String(id).padStart(21, '0')}`
}

describe('IFC properties (web-ifc)', () => {
  test('house-properties.ifc: the typed south wall, every group, converted from millimetres', () => {
    const { properties, truncated } = read(HOUSE)
    assert.deepEqual(properties.get(SOUTH_WALL), {
      groups: {
        IFC: {
          class: 'IfcWall',
          GlobalId: '2O2Fr$t4X7Zf8NOew3FLOH',
          Name: 'South Wall',
          Description: 'Outer leaf, south side',
          ObjectType: 'Cavity wall',
          Tag: 'W-01',
          PredefinedType: 'STANDARD',
          type: 'Cavity Wall 200',
          typeClass: 'IfcWallType',
          container: 'Ground Floor',
          containerClass: 'IfcBuildingStorey',
        },
        // The type's AcousticRating, the occurrence's FireRating over the type's REI30.
        Pset_WallCommon: {
          AcousticRating: 'R45',
          FireRating: 'REI60',
          IsExternal: true,
          ThermalTransmittance: 0.24,
          Width: 0.2,
          Combustible: 'unknown',
          Status: 'NEW',
        },
        Tessera_Site: {
          Finishes: 'Render, Paint',
          'Tolerance.lower': -0.005,
          'Tolerance.upper': 0.005,
          LayerCount: 2,
        },
        Qto_WallBaseQuantities: {
          Length: 5,
          NetSideArea: 14,
          NetVolume: 2.8,
          GrossWeight: 5040,
          Openings: 0,
        },
        // The occurrence's layer set usage, not the type's plain material.
        Materials: {
          'Layer set': 'Cavity 200',
          'Layer 1': 'Brick',
          'Layer 1 thickness': 0.1,
          'Layer 2': 'Mineral Wool',
          'Layer 2 thickness': 0.1,
        },
        Classification: { OmniClass: '21-02 10 10 Exterior Walls', Uniclass: 'Ss_25_10_30 Walls' },
      },
      units: {
        Pset_WallCommon: { Width: 'm' },
        Tessera_Site: { 'Tolerance.lower': 'm', 'Tolerance.upper': 'm' },
        Qto_WallBaseQuantities: { Length: 'm', NetSideArea: 'm²', NetVolume: 'm³', GrossWeight: 'kg' },
        Materials: { 'Layer 1 thickness': 'm', 'Layer 2 thickness': 'm' },
      },
    })
    assert.deepEqual(truncated, [])
  })

  test('house-properties.ifc: a bare wall, a slab with a material and an angle in degrees, the structure', () => {
    const { properties } = read(HOUSE)
    const storey = { container: 'Ground Floor', containerClass: 'IfcBuildingStorey' }
    assert.deepEqual(properties.get(EAST_WALL), {
      groups: { IFC: { class: 'IfcWall', GlobalId: '0jf0rYHfX3RAB3bSIRjmxl', Name: 'East Wall', ...storey } },
      units: {},
    })
    assert.deepEqual(properties.get(SLAB), {
      groups: {
        IFC: {
          class: 'IfcSlab',
          GlobalId: '1Kp9a4XPX1ie8kT0Gqu2$J',
          Name: 'Floor Slab',
          PredefinedType: 'FLOOR',
          ...storey,
        },
        Pset_SlabCommon: { PitchAngle: 2 },
        Materials: { Material: 'Concrete' },
      },
      units: { Pset_SlabCommon: { PitchAngle: '°' } },
    })
    const classes = [...properties.values()].map((node) => node.groups.IFC?.class).sort()
    assert.deepEqual(classes, [
      'IfcBuilding',
      'IfcBuildingStorey',
      'IfcSite',
      'IfcSlab',
      'IfcWall',
      'IfcWall',
    ])
  })

  test('house-properties.ifc still imports, with its geometry scaled from millimetres to metres', async () => {
    const document = await importIfc({ name: 'house-properties.ifc', bytes: HOUSE, files: new Map() })
    const nodes = document.getRoot().listNodes()
    const node = (name: string) => nodes.find((candidate) => candidate.getName() === name)
    const size = (name: string): number[] => {
      const found = node(name)
      assert.ok(found?.getMesh() && found, `${name} has a mesh`)
      const { min, max } = getBounds(found)
      return max.map((value, axis) => Number((value - (min[axis] ?? 0)).toFixed(4)))
    }
    assert.deepEqual(size('South Wall'), [5, 2.8, 0.2])
    assert.deepEqual(size('East Wall'), [0.2, 2.8, 4])
    assert.deepEqual(size('Floor Slab'), [5, 0.2, 4])
    assert.equal(node('South Wall')?.getExtras().ifcGlobalId, '2O2Fr$t4X7Zf8NOew3FLOH')
  })

  test('IFC2x3: ItemReference, a material list, feet, and a property unit of its own', () => {
    const bytes = ifcFile(
      [
        proxy(20, 'Beam 1'),
        "#30=IFCPROPERTYSINGLEVALUE('Height',$,IFCLENGTHMEASURE(10.),$);",
        "#31=IFCPROPERTYSINGLEVALUE('Depth',$,IFCLENGTHMEASURE(250.),#32);",
        '#32=IFCSIUNIT(*,.LENGTHUNIT.,.MILLI.,.METRE.);',
        "#33=IFCPROPERTYSET('1aaaaaaaaaaaaaaaaaaaa1',$,'Pset_Custom',$,(#30,#31));",
        "#34=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaaa2',$,$,$,(#20),#33);",
        "#40=IFCQUANTITYLENGTH('Length',$,$,3.);",
        "#41=IFCQUANTITYAREA('Area',$,$,2.);",
        "#42=IFCELEMENTQUANTITY('1aaaaaaaaaaaaaaaaaaaa3',$,'BaseQuantities',$,$,(#40,#41));",
        "#43=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaaa4',$,$,$,(#20),#42);",
        "#50=IFCMATERIAL('Steel');",
        "#51=IFCMATERIAL('Paint');",
        '#52=IFCMATERIALLIST((#50,#51));',
        "#53=IFCRELASSOCIATESMATERIAL('1aaaaaaaaaaaaaaaaaaaa5',$,$,$,(#20),#52);",
        "#60=IFCCLASSIFICATION('CSI','2010',$,'MasterFormat');",
        "#61=IFCCLASSIFICATIONREFERENCE($,'05 12 00','Structural Steel Framing',#60);",
        "#62=IFCRELASSOCIATESCLASSIFICATION('1aaaaaaaaaaaaaaaaaaaa6',$,$,$,(#20),#61);",
      ],
      {
        schema: 'IFC2X3',
        units: [
          '#1=IFCSIUNIT(*,.LENGTHUNIT.,$,.METRE.);',
          '#2=IFCDIMENSIONALEXPONENTS(1,0,0,0,0,0,0);',
          '#3=IFCMEASUREWITHUNIT(IFCLENGTHMEASURE(0.3048),#1);',
          "#4=IFCCONVERSIONBASEDUNIT(#2,.LENGTHUNIT.,'FOOT',#3);",
          '#5=IFCSIUNIT(*,.AREAUNIT.,.CENTI.,.SQUARE_METRE.);',
        ],
      },
    )
    assert.deepEqual(read(bytes).properties.get(20), {
      groups: {
        IFC: { class: 'IfcBuildingElementProxy', GlobalId: guid(20), Name: 'Beam 1' },
        Pset_Custom: { Height: 3.048, Depth: 0.25 },
        BaseQuantities: { Length: 0.9144, Area: 0.0002 },
        Materials: { 'Material 1': 'Steel', 'Material 2': 'Paint' },
        Classification: { MasterFormat: '05 12 00 Structural Steel Framing' },
      },
      units: {
        Pset_Custom: { Height: 'm', Depth: 'm' },
        BaseQuantities: { Length: 'm', Area: 'm²' },
      },
    })
  })

  test('IFC4: constituent and profile sets, a type’s material and sets, nested classifications, hours', () => {
    const bytes = ifcFile(
      [
        proxy(20, 'Window'),
        proxy(21, 'Column'),
        proxy(22, 'Bench'),
        "#30=IFCMATERIAL('Wood',$,$);",
        "#31=IFCMATERIAL('Glass',$,$);",
        "#32=IFCMATERIALCONSTITUENT('Frame',$,#30,$,$);",
        "#33=IFCMATERIALCONSTITUENT('Glazing',$,#31,$,$);",
        "#34=IFCMATERIALCONSTITUENTSET('Window set',$,(#32,#33));",
        "#35=IFCRELASSOCIATESMATERIAL('1aaaaaaaaaaaaaaaaaaaa1',$,$,$,(#20),#34);",
        "#36=IFCMATERIAL('S355',$,$);",
        "#37=IFCMATERIALPROFILE('Section',$,#36,$,$,$);",
        "#38=IFCMATERIALPROFILESET('HEA 200',$,(#37),$);",
        '#39=IFCMATERIALPROFILESETUSAGE(#38,$,$);',
        "#40=IFCRELASSOCIATESMATERIAL('1aaaaaaaaaaaaaaaaaaaa2',$,$,$,(#21),#39);",
        "#50=IFCCLASSIFICATION('NBS',$,$,'Uniclass 2015',$,$,$);",
        "#51=IFCCLASSIFICATIONREFERENCE($,'Ss','Systems',#50,$,$);",
        "#52=IFCCLASSIFICATIONREFERENCE($,'Ss_25','Wall and barrier systems',#51,$,$);",
        "#53=IFCCLASSIFICATIONREFERENCE($,'K-1',$,$,$,$);",
        "#54=IFCRELASSOCIATESCLASSIFICATION('1aaaaaaaaaaaaaaaaaaaa3',$,$,$,(#20),#52);",
        "#55=IFCRELASSOCIATESCLASSIFICATION('1aaaaaaaaaaaaaaaaaaaa4',$,$,$,(#21),#53);",
        // A type with a material and a set of its own; its occurrence has neither.
        "#60=IFCMATERIAL('Oak',$,$);",
        "#61=IFCPROPERTYSINGLEVALUE('Slope',$,IFCPLANEANGLEMEASURE(0.5),$);",
        "#62=IFCPROPERTYSET('1aaaaaaaaaaaaaaaaaaaa5',$,'Pset_Bench',$,(#61));",
        "#63=IFCBUILDINGELEMENTPROXYTYPE('1aaaaaaaaaaaaaaaaaaaa6',$,'Park Bench',$,$,(#62),$,$,$,.NOTDEFINED.);",
        "#64=IFCRELDEFINESBYTYPE('1aaaaaaaaaaaaaaaaaaaa7',$,$,$,(#22),#63);",
        "#65=IFCRELASSOCIATESMATERIAL('1aaaaaaaaaaaaaaaaaaaa8',$,$,$,(#63),#60);",
        "#70=IFCQUANTITYTIME('Assembly',$,$,2.,$);",
        "#71=IFCELEMENTQUANTITY('1aaaaaaaaaaaaaaaaaaaa9',$,'Qto_Assembly',$,$,(#70));",
        "#72=IFCPROPERTYSINGLEVALUE('Seats',$,IFCCOUNTMEASURE(3.),$);",
        "#73=IFCPROPERTYSET('1aaaaaaaaaaaaaaaaaaab0',$,'Pset_Seating',$,(#72));",
        "#74=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaab1',$,$,$,(#22),#71);",
        "#75=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaab2',$,$,$,(#22),#73);",
      ],
      {
        units: [
          '#1=IFCSIUNIT(*,.TIMEUNIT.,$,.SECOND.);',
          '#2=IFCDIMENSIONALEXPONENTS(0,0,1,0,0,0,0);',
          '#3=IFCMEASUREWITHUNIT(IFCTIMEMEASURE(3600.),#1);',
          "#4=IFCCONVERSIONBASEDUNIT(#2,.TIMEUNIT.,'HOUR',#3);",
          '#5=IFCSIUNIT(*,.PLANEANGLEUNIT.,$,.RADIAN.);',
        ],
      },
    )
    const { properties } = read(bytes)
    assert.deepEqual(properties.get(20)?.groups, {
      IFC: { class: 'IfcBuildingElementProxy', GlobalId: guid(20), Name: 'Window' },
      Materials: { 'Constituent set': 'Window set', 'Constituent 1': 'Wood', 'Constituent 2': 'Glass' },
      Classification: { 'Uniclass 2015': 'Ss_25 Wall and barrier systems' },
    })
    assert.deepEqual(properties.get(21)?.groups, {
      IFC: { class: 'IfcBuildingElementProxy', GlobalId: guid(21), Name: 'Column' },
      Materials: { 'Profile set': 'HEA 200', 'Profile 1': 'S355' },
      Classification: { Classification: 'K-1' },
    })
    assert.deepEqual(properties.get(22), {
      groups: {
        IFC: {
          class: 'IfcBuildingElementProxy',
          GlobalId: guid(22),
          Name: 'Bench',
          type: 'Park Bench',
          typeClass: 'IfcBuildingElementProxyType',
        },
        Pset_Bench: { Slope: 0.5 },
        Qto_Assembly: { Assembly: 7200 },
        Pset_Seating: { Seats: 3 },
        Materials: { Material: 'Oak' },
      },
      units: { Pset_Bench: { Slope: 'rad' }, Qto_Assembly: { Assembly: 's' } },
    })
  })

  test('bounds: values and names cut with …, at most 512 properties a node, one note per kind and node', () => {
    const long = 'x'.repeat(5000)
    const many = Array.from(
      { length: 600 },
      (_, i) => `#${1000 + i}=IFCPROPERTYSINGLEVALUE('P${i}',$,IFCINTEGER(${i}),$);`,
    )
    const bytes = ifcFile([
      proxy(20, 'Crowded'),
      proxy(21, 'Crowded too'),
      `#30=IFCPROPERTYSINGLEVALUE('Long',$,IFCTEXT('${long}'),$);`,
      `#31=IFCPROPERTYSINGLEVALUE('${'n'.repeat(300)}',$,IFCLABEL('short'),$);`,
      ...many,
      `#40=IFCPROPERTYSET('1aaaaaaaaaaaaaaaaaaaa1',$,'${'G'.repeat(200)}',$,(#30,#31,${many.map((_, i) => `#${1000 + i}`).join(',')}));`,
      "#41=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaaa2',$,$,$,(#20,#21),#40);",
    ])
    const { properties, truncated } = read(bytes)
    const crowded = properties.get(20)
    assert.ok(crowded)
    const groups = Object.entries(crowded.groups)
    assert.equal(
      groups.reduce((sum, [, values]) => sum + Object.keys(values).length, 0),
      512,
    )
    const [name, values] = groups[1] ?? ['', {}]
    assert.equal(name, `${'G'.repeat(127)}…`)
    assert.equal(values.Long, `${'x'.repeat(1023)}…`)
    assert.equal(values[`${'n'.repeat(127)}…`], 'short')
    // 3 IFC attributes, Long, the long name and P0 … P506.
    assert.equal(values.P506, 506)
    assert.equal(values.P507, undefined)
    const kinds = ['group name length', 'properties per node', 'property name length', 'value length']
    assert.deepEqual(truncated.sort(), [...kinds, ...kinds].sort())
    assert.deepEqual(Object.values(properties.get(21)?.groups ?? {})[1], values)
  })

  test('damaged references: missing lines, wrong classes and cycles are skipped, never thrown', () => {
    const bytes = ifcFile(
      [
        proxy(20, 'Damaged'),
        "#30=IFCPROPERTYSINGLEVALUE('Good',$,IFCLABEL('ok'),$);",
        "#31=IFCPROPERTYSINGLEVALUE('Referenced',$,#20,$);",
        "#32=IFCPROPERTYSET('1aaaaaaaaaaaaaaaaaaaa1',$,'Pset_Damaged',$,(#999,#20,#30,#31));",
        "#33=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaaa2',$,$,$,(#20,#998),#32);",
        "#34=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaaa3',$,$,$,(#20),#997);",
        "#35=IFCRELDEFINESBYPROPERTIES('1aaaaaaaaaaaaaaaaaaaa4',$,$,$,(#20),#30);",
        "#36=IFCRELDEFINESBYTYPE('1aaaaaaaaaaaaaaaaaaaa5',$,$,$,(#20),#996);",
        '#40=IFCMATERIALLAYERSETUSAGE(#995,.AXIS2.,.POSITIVE.,0.,$);',
        "#41=IFCRELASSOCIATESMATERIAL('1aaaaaaaaaaaaaaaaaaaa6',$,$,$,(#20),#40);",
        "#50=IFCCLASSIFICATIONREFERENCE($,'A','a',#51,$,$);",
        "#51=IFCCLASSIFICATIONREFERENCE($,'B','b',#50,$,$);",
        "#52=IFCRELASSOCIATESCLASSIFICATION('1aaaaaaaaaaaaaaaaaaaa7',$,$,$,(#20),#50);",
        "#53=IFCRELASSOCIATESCLASSIFICATION('1aaaaaaaaaaaaaaaaaaaa8',$,$,$,(#20),#30);",
        "#54=IFCRELCONTAINEDINSPATIALSTRUCTURE('1aaaaaaaaaaaaaaaaaaaa9',$,$,$,(#20),#994);",
      ],
      {
        units: [
          '#1=IFCSIUNIT(*,.LENGTHUNIT.,.MILLI.,.METRE.);',
          "#2=IFCCONVERSIONBASEDUNIT(#993,.AREAUNIT.,'ACRE',#992);",
          '#3=IFCUNITASSIGNMENT((#991));',
        ],
      },
    )
    const { properties } = read(bytes, [20, 30, 12345])
    assert.deepEqual(properties.get(20), {
      groups: {
        IFC: { class: 'IfcBuildingElementProxy', GlobalId: guid(20), Name: 'Damaged' },
        Pset_Damaged: { Good: 'ok' },
        Classification: { Classification: 'A a' },
      },
      units: {},
    })
    // Not products, not lines at all: still answered.
    assert.deepEqual(properties.get(30)?.groups.IFC, { class: 'IfcPropertySingleValue', Name: 'Good' })
    assert.deepEqual(properties.get(12345), { groups: { IFC: {} }, units: {} })
  })
})
