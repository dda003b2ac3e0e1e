// Small models generated in code, for formats no installed package ships a sample of (and for
// scene structures the tests need). Each is the smallest file that exercises the importer's path.
import { Document, NodeIO } from '@gltf-transform/core'
import { strToU8, zipSync } from 'fflate'
import sharp from 'sharp'

/** Corners and triangles of an axis-aligned box centred on the origin. */
function box(document: Document, name: string, size: [number, number, number]) {
  const [x, y, z] = size.map((s) => s / 2) as [number, number, number]
  const positions = new Float32Array([
    -x,
    -y,
    -z,
    x,
    -y,
    -z,
    x,
    y,
    -z,
    -x,
    y,
    -z,
    -x,
    -y,
    z,
    x,
    -y,
    z,
    x,
    y,
    z,
    -x,
    y,
    z,
  ])
  const indices = new Uint16Array([
    0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 6, 2, 3, 7, 6, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6,
    5,
  ])
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices))
  return document.createMesh(name).addPrimitive(primitive)
}

/**
 * A car: named parts (four wheels with the same name, each with its own copy of one mesh, an empty
 * named marker) and six anonymous bolts at the root — the instancing candidates.
 */
export function carDocument(): Document {
  const document = new Document()
  const buffer = document.createBuffer()
  const scene = document.createScene('Scene')
  const car = document.createNode('Car')
  scene.addChild(car)
  car.addChild(document.createNode('Body').setMesh(box(document, 'body', [4, 1, 2])))
  for (let i = 0; i < 4; i++) {
    const wheel = document.createNode('Wheel').setMesh(box(document, `wheel${i}`, [0.6, 0.6, 0.2]))
    car.addChild(wheel.setTranslation([i < 2 ? -1.5 : 1.5, -0.5, i % 2 ? 1 : -1]))
  }
  car.addChild(document.createNode('Marker').setTranslation([0, 2, 0]))
  for (let i = 0; i < 6; i++) {
    scene.addChild(
      document
        .createNode()
        .setMesh(box(document, 'bolt', [0.1, 0.1, 0.1]))
        .setTranslation([i, 3, 0]),
    )
  }
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return document
}

/** carDocument() as a .gltf with its buffer embedded as a data URI. */
export async function embeddedGltf(): Promise<Uint8Array> {
  const { json, resources } = await new NodeIO().writeJSON(carDocument(), { basename: 'car' })
  for (const bufferDef of json.buffers ?? []) {
    const data = bufferDef.uri ? resources[bufferDef.uri] : undefined
    if (data) bufferDef.uri = `data:application/octet-stream;base64,${Buffer.from(data).toString('base64')}`
  }
  return strToU8(JSON.stringify(json))
}

/** A one-quad document named `Panel` whose material shows `png` (as `textures/checker.png`). */
export function texturedPanelDocument(png: Uint8Array): Document {
  const document = new Document()
  const buffer = document.createBuffer()
  const texture = document.createTexture('checker').setImage(png).setMimeType('image/png')
  texture.setURI('textures/checker.png')
  const material = document.createMaterial('painted').setBaseColorTexture(texture)
  const primitive = document
    .createPrimitive()
    .setMaterial(material)
    .setAttribute(
      'POSITION',
      document
        .createAccessor()
        .setType('VEC3')
        .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]))
        .setBuffer(buffer),
    )
    .setAttribute(
      'TEXCOORD_0',
      document
        .createAccessor()
        .setType('VEC2')
        .setArray(new Float32Array([0, 1, 1, 1, 1, 0, 0, 0]))
        .setBuffer(buffer),
    )
    .setIndices(
      document
        .createAccessor()
        .setType('SCALAR')
        .setArray(new Uint16Array([0, 1, 2, 0, 2, 3]))
        .setBuffer(buffer),
    )
  const panel = document.createNode('Panel').setMesh(document.createMesh('panel').addPrimitive(primitive))
  document.createScene().addChild(panel)
  return document
}

/** A textured quad as `scene.gltf` + `scene.bin` + `textures/checker.png`. */
export async function separateGltf(): Promise<{ gltf: Uint8Array; bin: Uint8Array; png: Uint8Array }> {
  const pixels = Buffer.alloc(8 * 8 * 3)
  for (let i = 0; i < 64; i++) pixels.fill(((i >> 3) + i) % 2 ? 255 : 40, i * 3, i * 3 + 3)
  const png = new Uint8Array(
    await sharp(pixels, { raw: { width: 8, height: 8, channels: 3 } })
      .png()
      .toBuffer(),
  )

  const document = texturedPanelDocument(png)
  const { json, resources } = await new NodeIO().writeJSON(document, { basename: 'scene' })
  const bin = resources['scene.bin']
  if (!bin || json.images?.[0]?.uri !== 'textures/checker.png') throw new Error('unexpected glTF layout')
  return { gltf: strToU8(JSON.stringify(json)), bin, png }
}

/** ASCII PLY: a unit cube, 12 triangles, one colour per corner. */
export function plyCube(): string {
  const corners = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `${i & 1} ${(i >> 1) & 1} ${(i >> 2) & 1}`)
  const colors = [
    '255 0 0',
    '0 255 0',
    '0 0 255',
    '255 255 0',
    '0 255 255',
    '255 0 255',
    '255 255 255',
    '0 0 0',
  ]
  const faces = [
    [0, 2, 1],
    [1, 2, 3],
    [4, 5, 6],
    [5, 7, 6],
    [0, 1, 4],
    [1, 5, 4],
    [2, 6, 3],
    [3, 6, 7],
    [0, 4, 2],
    [2, 4, 6],
    [1, 3, 5],
    [3, 7, 5],
  ]
  return [
    'ply',
    'format ascii 1.0',
    'element vertex 8',
    'property float x',
    'property float y',
    'property float z',
    'property uchar red',
    'property uchar green',
    'property uchar blue',
    'element face 12',
    'property list uchar int vertex_indices',
    'end_header',
    ...corners.map((corner, i) => `${corner} ${colors[i]}`),
    ...faces.map((face) => `3 ${face.join(' ')}`),
    '',
  ].join('\n')
}

/** ASCII PLY without faces: a point cloud. */
export function plyPoints(): string {
  const points = ['0 0 0', '1 0 0', '0 1 0', '0 0 1', '1 1 1']
  return [
    'ply',
    'format ascii 1.0',
    'element vertex 5',
    'property float x',
    'property float y',
    'property float z',
    'end_header',
    ...points,
    '',
  ].join('\n')
}

/** OBJ with two named objects (no material library): a quad, and two triangles of two materials. */
export function objTwoParts(): string {
  return [
    'o Left',
    'v 0 0 0',
    'v 1 0 0',
    'v 1 1 0',
    'v 0 1 0',
    'f 1 2 3 4',
    'o Right',
    'v 2 0 0',
    'v 3 0 0',
    'v 3 1 0',
    'v 2 1 0',
    'usemtl red',
    'f 5 6 7',
    'usemtl blue',
    'f 5 7 8',
    '',
  ].join('\n')
}

/** ASCII FBX 7.4: a square pyramid (one quad, four triangles) in a Null group, with a material. */
export function fbxPyramid(): string {
  return `; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UpAxis", "int", "Integer", "",1
		P: "UpAxisSign", "int", "Integer", "",1
		P: "FrontAxis", "int", "Integer", "",2
		P: "FrontAxisSign", "int", "Integer", "",1
		P: "CoordAxis", "int", "Integer", "",0
		P: "CoordAxisSign", "int", "Integer", "",1
		P: "UnitScaleFactor", "double", "Number", "",1
	}
}
Objects:  {
	Geometry: 1000, "Geometry::Pyramid", "Mesh" {
		Vertices: *15 {
			a: 0,0,0,1,0,0,1,0,1,0,0,1,0.5,1,0.5
		}
		PolygonVertexIndex: *16 {
			a: 0,1,2,-4,0,4,-2,1,4,-3,2,4,-4,3,4,-1
		}
		GeometryVersion: 124
		LayerElementMaterial: 0 {
			Version: 101
			Name: ""
			MappingInformationType: "AllSame"
			ReferenceInformationType: "IndexToDirect"
			Materials: *1 {
				a: 0
			}
		}
		Layer: 0 {
			Version: 100
			LayerElement:  {
				Type: "LayerElementMaterial"
				TypedIndex: 0
			}
		}
	}
	Model: 2000, "Model::Group", "Null" {
		Version: 232
	}
	Model: 2001, "Model::Pyramid", "Mesh" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",2,0,0
		}
	}
	Material: 3000, "Material::Stone", "" {
		Version: 102
		ShadingModel: "phong"
		Properties70:  {
			P: "DiffuseColor", "Color", "", "A",0.5,0.4,0.3
		}
	}
}
Connections:  {
	C: "OO",2000,0
	C: "OO",2001,2000
	C: "OO",1000,2001
	C: "OO",3000,2001
}
`
}

/** 3MF (a zip of XML parts): one tetrahedron object named "Bracket". */
export function threeMfTetrahedron(): Uint8Array {
  const model = `<?xml version="1.0" encoding="UTF-8"?>
<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">
  <resources>
    <object id="1" name="Bracket" type="model">
      <mesh>
        <vertices>
          <vertex x="0" y="0" z="0"/><vertex x="10" y="0" z="0"/><vertex x="0" y="10" z="0"/><vertex x="0" y="0" z="10"/>
        </vertices>
        <triangles>
          <triangle v1="0" v2="2" v3="1"/><triangle v1="0" v2="1" v3="3"/><triangle v1="0" v2="3" v3="2"/><triangle v1="1" v2="2" v3="3"/>
        </triangles>
      </mesh>
    </object>
  </resources>
  <build><item objectid="1"/></build>
</model>`
  const contentTypes = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
  <Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/>
</Types>`
  const rels = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>
</Relationships>`
  return zipSync({
    '[Content_Types].xml': strToU8(contentTypes),
    '_rels/.rels': strToU8(rels),
    '3D/3dmodel.model': strToU8(model),
  })
}

/** COLLADA 1.4.1: node "Holder" containing node "Plate", which instances a two-triangle mesh. */
export function daeTwoTriangles(): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="plate-mesh" name="plate">
      <mesh>
        <source id="plate-positions">
          <float_array id="plate-positions-array" count="12">0 0 0 1 0 0 1 1 0 0 1 0</float_array>
          <technique_common>
            <accessor source="#plate-positions-array" count="4" stride="3">
              <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
            </accessor>
          </technique_common>
        </source>
        <vertices id="plate-vertices"><input semantic="POSITION" source="#plate-positions"/></vertices>
        <triangles count="2"><input semantic="VERTEX" source="#plate-vertices" offset="0"/><p>0 1 2 0 2 3</p></triangles>
      </mesh>
    </geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="Holder" name="Holder">
        <translate>0 1 0</translate>
        <node id="Plate" name="Plate"><instance_geometry url="#plate-mesh"/></node>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
`
}
