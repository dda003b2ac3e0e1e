// A generated IFC4 building of `count` walls, each described as a BIM authoring tool would: a
// Pset_WallCommon of ten properties, a Qto_WallBaseQuantities of four, one of five wall types
// (with its own property set) and layered materials, a Uniclass reference, all in millimetres. Every
// wall is placed on a grid and shares one extruded-rectangle body, so the geometry stays small and
// the file is mostly what the property extraction reads (bench/properties.ts, `--convert`).

const guid = (n: number) => `0${n.toString(36).padStart(21, '0')}`

class Lines {
  readonly text: string[] = []
  #next = 100
  add(entity: string): number {
    const id = this.#next++
    this.text.push(`#${id}=${entity};`)
    return id
  }
}

function header(lines: Lines): { storey: number; storeyPlacement: number; body: number } {
  lines.text.push(
    '#1=IFCSIUNIT(*,.LENGTHUNIT.,.MILLI.,.METRE.);',
    '#2=IFCSIUNIT(*,.AREAUNIT.,$,.SQUARE_METRE.);',
    '#3=IFCSIUNIT(*,.VOLUMEUNIT.,$,.CUBIC_METRE.);',
    '#4=IFCUNITASSIGNMENT((#1,#2,#3));',
    '#5=IFCCARTESIANPOINT((0.,0.,0.));',
    '#6=IFCDIRECTION((0.,0.,1.));',
    '#7=IFCAXIS2PLACEMENT3D(#5,$,$);',
    "#8=IFCGEOMETRICREPRESENTATIONCONTEXT($,'Model',3,1.E-05,#7,$);",
    "#9=IFCGEOMETRICREPRESENTATIONSUBCONTEXT('Body','Model',*,*,*,*,#8,$,.MODEL_VIEW.,$);",
    `#10=IFCPROJECT('${guid(10)}',$,'Walls',$,$,$,$,(#8),#4);`,
    '#11=IFCLOCALPLACEMENT($,#7);',
    `#12=IFCBUILDINGSTOREY('${guid(12)}',$,'Level 1',$,$,#11,$,$,.ELEMENT.,0.);`,
    `#13=IFCRELAGGREGATES('${guid(13)}',$,$,$,#10,(#12));`,
    '#14=IFCCARTESIANPOINT((1500.,100.));',
    '#15=IFCAXIS2PLACEMENT2D(#14,$);',
    '#16=IFCRECTANGLEPROFILEDEF(.AREA.,$,#15,3000.,200.);',
    '#17=IFCEXTRUDEDAREASOLID(#16,#7,#6,2800.);',
    "#18=IFCSHAPEREPRESENTATION(#9,'Body','SweptSolid',(#17));",
    '#19=IFCPRODUCTDEFINITIONSHAPE($,$,(#18));',
  )
  return { storey: 12, storeyPlacement: 11, body: 19 }
}

/** Five wall types, each with its own property set and a two-layer material. */
function wallTypes(lines: Lines): { types: number[]; materials: number[] } {
  const types: number[] = []
  const materials: number[] = []
  for (let t = 0; t < 5; t++) {
    const rating = lines.add(`IFCPROPERTYSINGLEVALUE('AcousticRating',$,IFCLABEL('R${40 + t}'),$)`)
    const set = lines.add(`IFCPROPERTYSET('${guid(1000 + t)}',$,'Pset_WallCommon',$,(#${rating}))`)
    types.push(
      lines.add(`IFCWALLTYPE('${guid(2000 + t)}',$,'Wall type ${t}',$,$,(#${set}),$,$,$,.STANDARD.)`),
    )
    const brick = lines.add(`IFCMATERIAL('Brick ${t}',$,$)`)
    const wool = lines.add(`IFCMATERIAL('Mineral wool ${t}',$,$)`)
    const outer = lines.add(`IFCMATERIALLAYER(#${brick},100.,.F.,$,$,$,$)`)
    const inner = lines.add(`IFCMATERIALLAYER(#${wool},${100 + t * 10}.,.F.,$,$,$,$)`)
    const layers = lines.add(`IFCMATERIALLAYERSET((#${outer},#${inner}),'Layers ${t}',$)`)
    materials.push(lines.add(`IFCMATERIALLAYERSETUSAGE(#${layers},.AXIS2.,.POSITIVE.,0.,$)`))
  }
  return { types, materials }
}

function wall(lines: Lines, w: number, at: { storeyPlacement: number; body: number }): number {
  const point = lines.add(`IFCCARTESIANPOINT((${(w % 250) * 3500}.,${Math.floor(w / 250) * 3500}.,0.))`)
  const axes = lines.add(`IFCAXIS2PLACEMENT3D(#${point},$,$)`)
  const placement = lines.add(`IFCLOCALPLACEMENT(#${at.storeyPlacement},#${axes})`)
  const id = lines.add(
    `IFCWALL('${guid(10_000 + w)}',$,'Wall ${w}','Generated',$,#${placement},#${at.body},'W-${w}',.STANDARD.)`,
  )
  const single = (name: string, value: string) => lines.add(`IFCPROPERTYSINGLEVALUE('${name}',$,${value},$)`)
  const props = [
    single('FireRating', `IFCLABEL('REI${60 + (w % 4) * 30}')`),
    single('IsExternal', `IFCBOOLEAN(${w % 2 ? '.T.' : '.F.'})`),
    single('LoadBearing', 'IFCBOOLEAN(.T.)'),
    single('ThermalTransmittance', `IFCTHERMALTRANSMITTANCEMEASURE(0.${20 + (w % 50)})`),
    single('Width', `IFCPOSITIVELENGTHMEASURE(${200 + (w % 7) * 10}.)`),
    single('Reference', `IFCIDENTIFIER('WT-${w % 13}')`),
    single('Combustible', 'IFCBOOLEAN(.F.)'),
    single('Compartmentation', 'IFCBOOLEAN(.F.)'),
    single('ExtendToStructure', 'IFCBOOLEAN(.T.)'),
    lines.add("IFCPROPERTYENUMERATEDVALUE('Status',$,(IFCLABEL('NEW')),$)"),
  ]
  const set = lines.add(
    `IFCPROPERTYSET('${guid(3_000_000 + w)}',$,'Pset_WallCommon',$,(${props.map((p) => `#${p}`).join(',')}))`,
  )
  lines.add(`IFCRELDEFINESBYPROPERTIES('${guid(4_000_000 + w)}',$,$,$,(#${id}),#${set})`)
  const quantities = [
    lines.add(`IFCQUANTITYLENGTH('Length',$,$,${3000 + (w % 1000)}.,$)`),
    lines.add("IFCQUANTITYLENGTH('Height',$,$,2800.,$)"),
    lines.add(`IFCQUANTITYAREA('NetSideArea',$,$,${(8 + (w % 10) / 10).toFixed(1)},$)`),
    lines.add("IFCQUANTITYVOLUME('NetVolume',$,$,1.75,$)"),
  ]
  const qto = lines.add(
    `IFCELEMENTQUANTITY('${guid(5_000_000 + w)}',$,'Qto_WallBaseQuantities',$,$,(${quantities.map((q) => `#${q}`).join(',')}))`,
  )
  lines.add(`IFCRELDEFINESBYPROPERTIES('${guid(6_000_000 + w)}',$,$,$,(#${id}),#${qto})`)
  return id
}

export function wallsIfc(count: number): Buffer {
  const lines = new Lines()
  const at = header(lines)
  const { types, materials } = wallTypes(lines)
  const source = lines.add("IFCCLASSIFICATION('NBS',$,$,'Uniclass',$,$,$)")
  const uniclass = lines.add(`IFCCLASSIFICATIONREFERENCE($,'Ss_25_10_30','Walls',#${source},$,$)`)
  const walls = Array.from({ length: count }, (_, w) => wall(lines, w, at))
  const list = (ids: number[]) => ids.map((id) => `#${id}`).join(',')
  for (let t = 0; t < 5; t++) {
    const mine = walls.filter((_, i) => i % 5 === t)
    lines.add(`IFCRELDEFINESBYTYPE('${guid(7_000_000 + t)}',$,$,$,(${list(mine)}),#${types[t]})`)
    lines.add(`IFCRELASSOCIATESMATERIAL('${guid(7_100_000 + t)}',$,$,$,(${list(mine)}),#${materials[t]})`)
  }
  lines.add(`IFCRELASSOCIATESCLASSIFICATION('${guid(7_200_000)}',$,$,$,(${list(walls)}),#${uniclass})`)
  lines.add(`IFCRELCONTAINEDINSPATIALSTRUCTURE('${guid(7_300_000)}',$,$,$,(${list(walls)}),#${at.storey})`)
  const head = ['ISO-10303-21;', 'HEADER;', "FILE_DESCRIPTION((''),'2;1');"]
  head.push("FILE_NAME('walls.ifc','',(''),(''),'','','');", "FILE_SCHEMA(('IFC4'));", 'ENDSEC;', 'DATA;')
  return Buffer.from([...head, ...lines.text, 'ENDSEC;', 'END-ISO-10303-21;', ''].join('\n'))
}
