// Models with repeated parts, for the "geometry stored once" tests and bench: a glTF whose parts
// each carry their own copy of one mesh, and an IFC whose windows map one representation.
import { Document, type Material, NodeIO } from '@gltf-transform/core'
import { strToU8 } from 'fflate'

/** A unit box's corners and triangles. */
function boxArrays(): { positions: Float32Array; indices: Uint16Array } {
  const positions = new Float32Array(24)
  for (let corner = 0; corner < 8; corner++) {
    positions.set([corner & 1 ? 0.5 : -0.5, corner & 2 ? 0.5 : -0.5, corner & 4 ? 0.5 : -0.5], corner * 3)
  }
  const faces = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
  ]
  const indices = new Uint16Array(faces.flatMap(([a, b, c, d]) => [a, b, c, a, c, d] as number[]))
  return { positions, indices }
}

/**
 * `count` named parts ("Screw"), each node with its OWN mesh and accessors holding the same box —
 * as exporters write instanced parts — under a named assembly, plus a named base plate.
 */
export function repeatedPartsDocument(count: number): Document {
  const document = new Document()
  const buffer = document.createBuffer()
  const scene = document.createScene('Scene')
  const assembly = document.createNode('Assembly')
  scene.addChild(assembly)
  const steel = document.createMaterial('steel').setBaseColorFactor([0.5, 0.5, 0.55, 1])
  const wood = document.createMaterial('wood').setBaseColorFactor([0.6, 0.4, 0.2, 1])
  const plate = document.createNode('Plate').setScale([10, 0.2, 10])
  assembly.addChild(plate.setMesh(boxMesh(document, 'plate', wood)))
  for (let i = 0; i < count; i++) {
    const screw = document.createNode('Screw').setMesh(boxMesh(document, `screw ${i}`, steel))
    assembly.addChild(screw.setTranslation([(i % 5) - 2, 0.5, Math.floor(i / 5) - 2]).setScale([0.1, 1, 0.1]))
  }
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return document
}

function boxMesh(document: Document, name: string, material: Material) {
  const { positions, indices } = boxArrays()
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices))
    .setMaterial(material)
  return document.createMesh(name).addPrimitive(primitive)
}

export function repeatedPartsGlb(count: number): Promise<Uint8Array> {
  return new NodeIO().writeBinary(repeatedPartsDocument(count))
}

/** A 22-character IFC GlobalId, unique per `n`. */
function globalId(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(22 - prefix.length, '0')}`
}

/**
 * An IFC4 storey with `count` windows (building element proxies named "Window n"), each placed
 * along the wall, every third turned 90°, all drawing one IfcRepresentationMap through an
 * IfcMappedItem, as BIM tools export repeated types.
 */
export function ifcRepeatedWindows(count: number): Uint8Array {
  const lines = [
    'ISO-10303-21;',
    'HEADER;',
    "FILE_DESCRIPTION(('ViewDefinition [ReferenceView_V1.2]'),'2;1');",
    "FILE_NAME('windows.ifc','2025-01-01T00:00:00',('Tessera'),('Tessera'),'generated','generated','');",
    "FILE_SCHEMA(('IFC4'));",
    'ENDSEC;',
    'DATA;',
    '#10=IFCSIUNIT(*,.LENGTHUNIT.,$,.METRE.);',
    '#13=IFCSIUNIT(*,.PLANEANGLEUNIT.,$,.RADIAN.);',
    '#14=IFCUNITASSIGNMENT((#10,#13));',
    '#20=IFCCARTESIANPOINT((0.,0.,0.));',
    '#21=IFCDIRECTION((0.,0.,1.));',
    '#22=IFCDIRECTION((0.,1.,0.));',
    '#23=IFCAXIS2PLACEMENT3D(#20,$,$);',
    "#24=IFCGEOMETRICREPRESENTATIONCONTEXT($,'Model',3,1.E-05,#23,$);",
    "#25=IFCGEOMETRICREPRESENTATIONSUBCONTEXT('Body','Model',*,*,*,*,#24,$,.MODEL_VIEW.,$);",
    "#30=IFCPROJECT('0YvctVUKr0kugbFTf53O9L',$,'Windows',$,$,$,$,(#24),#14);",
    '#40=IFCLOCALPLACEMENT($,#23);',
    "#41=IFCSITE('1hOSvn6df7F8_7GcBWlR72',$,'Site',$,$,#40,$,$,.ELEMENT.,$,$,$,$,$);",
    '#44=IFCLOCALPLACEMENT(#40,#23);',
    "#45=IFCBUILDINGSTOREY('3Ofz$xK0r5Ig8r_Bz8Yy1s',$,'Ground Floor',$,$,#44,$,$,.ELEMENT.,0.);",
    "#50=IFCRELAGGREGATES('0xScRe4drECQ4DMSqUjd6d',$,$,$,#30,(#41));",
    "#51=IFCRELAGGREGATES('2Ifr_B1qX0BeQ9t0FcbZ7m',$,$,$,#41,(#45));",
    // The window type's geometry: a 1.2 × 0.1 × 1.5 m frame, defined once.
    '#60=IFCCARTESIANPOINT((0.6,0.05));',
    '#61=IFCAXIS2PLACEMENT2D(#60,$);',
    '#62=IFCRECTANGLEPROFILEDEF(.AREA.,$,#61,1.2,0.1);',
    '#63=IFCEXTRUDEDAREASOLID(#62,#23,#21,1.5);',
    "#64=IFCSHAPEREPRESENTATION(#25,'Body','SweptSolid',(#63));",
    '#65=IFCREPRESENTATIONMAP(#23,#64);',
    '#66=IFCCARTESIANTRANSFORMATIONOPERATOR3D($,$,#20,$,$);',
    '#67=IFCMAPPEDITEM(#65,#66);',
    "#68=IFCSHAPEREPRESENTATION(#25,'Body','MappedRepresentation',(#67));",
    '#69=IFCPRODUCTDEFINITIONSHAPE($,$,(#68));',
  ]
  const windows: string[] = []
  for (let i = 0; i < count; i++) {
    const id = 1000 + i * 4
    const turned = i % 3 === 2 ? '#21,#22' : '$,$'
    lines.push(
      `#${id}=IFCCARTESIANPOINT((${(i * 1.5).toFixed(1)},0.,0.9));`,
      `#${id + 1}=IFCAXIS2PLACEMENT3D(#${id},${turned});`,
      `#${id + 2}=IFCLOCALPLACEMENT(#44,#${id + 1});`,
      `#${id + 3}=IFCBUILDINGELEMENTPROXY('${globalId('2W', i)}',$,'Window ${i + 1}',$,$,#${id + 2},#69,$,.NOTDEFINED.);`,
    )
    windows.push(`#${id + 3}`)
  }
  lines.push(
    `#90=IFCRELCONTAINEDINSPATIALSTRUCTURE('3Hp6n_0Rz2Ov6Q9sFqv1Bd',$,$,$,(${windows.join(',')}),#45);`,
    'ENDSEC;',
    'END-ISO-10303-21;',
  )
  return strToU8(lines.join('\n'))
}
