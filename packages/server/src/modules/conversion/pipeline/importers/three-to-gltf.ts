// three.js scene graph → glTF-Transform document. three's STL/PLY/OBJ loaders run in Node without a
// DOM, but they produce three objects; this keeps their hierarchy, names, transforms, geometry
// groups and basic material colours. Textures are not carried (those loaders load none in Node).
import {
  type Accessor,
  Document,
  type GLTF,
  type Material,
  type Mesh,
  type Node,
  type Primitive,
} from '@gltf-transform/core'
import {
  type BufferAttribute,
  type BufferGeometry,
  DoubleSide,
  type InterleavedBufferAttribute,
  Line,
  LineLoop,
  LineSegments,
  type Object3D,
  Points,
  type Material as ThreeMaterial,
  Mesh as ThreeMesh,
} from 'three'
import { pipelineLogger } from '../io.ts'

type GeometryObject = ThreeMesh | Points | Line
type AnyAttribute = BufferAttribute | InterleavedBufferAttribute

export interface ThreeConversionOptions {
  /** Drop the source's normals (STL facet normals: glTF viewers compute flat normals themselves). */
  dropNormals?: boolean
}

/** A document with one scene holding `root` (and its descendants) as its only root node. */
export function documentFromThree(root: Object3D, options: ThreeConversionOptions = {}): Document {
  const document = new Document().setLogger(pipelineLogger)
  const buffer = document.createBuffer()
  const context: Context = { document, options, materials: new Map(), accessors: new Map() }
  const scene = document.createScene()
  document.getRoot().setDefaultScene(scene)
  scene.addChild(convertObject(context, root))
  // Every accessor needs a buffer to be written.
  for (const accessor of document.getRoot().listAccessors()) accessor.setBuffer(buffer)
  return document
}

interface Context {
  document: Document
  options: ThreeConversionOptions
  materials: Map<ThreeMaterial, Material>
  /** One accessor per three attribute, so primitives cut from one geometry share vertex data. */
  accessors: Map<AnyAttribute, Accessor | null>
}

function convertObject(context: Context, object: Object3D): Node {
  const node = context.document
    .createNode(object.name)
    .setTranslation([object.position.x, object.position.y, object.position.z])
    .setRotation([object.quaternion.x, object.quaternion.y, object.quaternion.z, object.quaternion.w])
    .setScale([object.scale.x, object.scale.y, object.scale.z])
  if (isGeometryObject(object)) {
    const mesh = convertMesh(context, object)
    if (mesh) node.setMesh(mesh)
  }
  for (const child of object.children) node.addChild(convertObject(context, child))
  return node
}

function isGeometryObject(object: Object3D): object is GeometryObject {
  return object instanceof ThreeMesh || object instanceof Points || object instanceof Line
}

/** glTF primitive modes (Primitive.Mode is typed as a loose record). */
const MODE = { POINTS: 0, LINES: 1, LINE_LOOP: 2, LINE_STRIP: 3, TRIANGLES: 4 } as const

function primitiveMode(object: GeometryObject): GLTF.MeshPrimitiveMode {
  if (object instanceof Points) return MODE.POINTS
  if (object instanceof LineSegments) return MODE.LINES
  if (object instanceof LineLoop) return MODE.LINE_LOOP
  if (object instanceof Line) return MODE.LINE_STRIP
  return MODE.TRIANGLES
}

function convertMesh(context: Context, object: GeometryObject): Mesh | undefined {
  const geometry = object.geometry
  const position = geometry.getAttribute('position')
  if (!position || position.count === 0) return undefined
  const materials = Array.isArray(object.material) ? object.material : [object.material]
  const mesh = context.document.createMesh(object.name)
  // Without groups the whole geometry is one primitive with the first material.
  const groups =
    geometry.groups.length > 0
      ? geometry.groups
      : [{ start: 0, count: geometry.index?.count ?? position.count, materialIndex: 0 }]
  for (const group of groups) {
    const primitive = convertGroup(context, geometry, group.start, group.count)
    if (!primitive) continue
    primitive.setMode(primitiveMode(object))
    const material = materials[group.materialIndex ?? 0]
    if (material) primitive.setMaterial(convertMaterial(context, material))
    mesh.addPrimitive(primitive)
  }
  return mesh.listPrimitives().length > 0 ? mesh : undefined
}

/** A primitive for one geometry group: an index range, or a vertex range when not indexed. */
function convertGroup(
  context: Context,
  geometry: BufferGeometry,
  start: number,
  count: number,
): Primitive | undefined {
  const { document } = context
  const primitive = document.createPrimitive()
  const index = geometry.index
  const wholeGeometry = start === 0 && count >= (index?.count ?? geometry.getAttribute('position').count)
  if (index) {
    const end = Math.min(start + count, index.count)
    if (end <= start) return undefined
    const indices = new Uint32Array(end - start)
    for (let i = start; i < end; i++) indices[i - start] = index.getX(i)
    primitive.setIndices(document.createAccessor().setType('SCALAR').setArray(indices))
  }
  // Loaders may give the last group an open-ended count (Infinity): clamp it to the vertices there are.
  const vertexCount = geometry.getAttribute('position').count
  const slice =
    index || wholeGeometry ? undefined : { start, count: Math.max(0, Math.min(count, vertexCount - start)) }
  if (slice?.count === 0) return undefined
  for (const [threeName, gltfName] of ATTRIBUTES) {
    const attribute = geometry.getAttribute(threeName)
    if (!attribute) continue
    if (threeName === 'normal' && context.options.dropNormals) continue
    const accessor = slice
      ? createAccessor(context, threeName, attribute, slice)
      : sharedAccessor(context, threeName, attribute)
    if (accessor) primitive.setAttribute(gltfName, accessor)
  }
  return primitive.getAttribute('POSITION') ? primitive : undefined
}

const ATTRIBUTES: ReadonlyArray<[string, string]> = [
  ['position', 'POSITION'],
  ['normal', 'NORMAL'],
  ['uv', 'TEXCOORD_0'],
  ['color', 'COLOR_0'],
]

function sharedAccessor(context: Context, threeName: string, attribute: AnyAttribute): Accessor | undefined {
  if (!context.accessors.has(attribute)) {
    context.accessors.set(attribute, createAccessor(context, threeName, attribute) ?? null)
  }
  return context.accessors.get(attribute) ?? undefined
}

/**
 * Copies an attribute into a float accessor, adapting three's conventions to glTF's: UV origin
 * top-left (v flipped), unit-length normals (a primitive with zero-length normals gets none, so
 * viewers compute flat ones instead of rendering black).
 */
function createAccessor(
  context: Context,
  threeName: string,
  attribute: AnyAttribute,
  range = { start: 0, count: attribute.count },
): Accessor | undefined {
  const itemSize = attribute.itemSize
  const type = threeName === 'uv' ? 'VEC2' : itemSize === 4 ? 'VEC4' : 'VEC3'
  const width = type === 'VEC2' ? 2 : type === 'VEC4' ? 4 : 3
  if ((threeName === 'uv' && itemSize !== 2) || (threeName !== 'uv' && itemSize !== 3 && itemSize !== 4)) {
    return undefined
  }
  const values = new Float32Array(range.count * width)
  for (let i = 0; i < range.count; i++) {
    for (let c = 0; c < width; c++) values[i * width + c] = attribute.getComponent(range.start + i, c)
  }
  if (threeName === 'uv') for (let i = 1; i < values.length; i += 2) values[i] = 1 - (values[i] ?? 0)
  if (threeName === 'normal' && !normalizeInPlace(values)) return undefined
  if (!values.every(Number.isFinite)) return undefined
  return context.document.createAccessor().setType(type).setArray(values)
}

/** Normalizes VEC3s in place; false when one has zero or non-finite length. */
function normalizeInPlace(values: Float32Array): boolean {
  for (let i = 0; i < values.length; i += 3) {
    const x = values[i] ?? 0
    const y = values[i + 1] ?? 0
    const z = values[i + 2] ?? 0
    const length = Math.hypot(x, y, z)
    if (!(length > 1e-12) || !Number.isFinite(length)) return false
    values[i] = x / length
    values[i + 1] = y / length
    values[i + 2] = z / length
  }
  return true
}

function convertMaterial(context: Context, source: ThreeMaterial): Material {
  const known = context.materials.get(source)
  if (known) return known
  const material = context.document.createMaterial(source.name).setDoubleSided(source.side === DoubleSide)
  const color = 'color' in source && isColor(source.color) ? source.color : undefined
  const opacity = Math.min(1, Math.max(0, source.opacity))
  material.setBaseColorFactor([color?.r ?? 1, color?.g ?? 1, color?.b ?? 1, opacity])
  if (source.transparent && opacity < 1) material.setAlphaMode('BLEND')
  material.setMetallicFactor(0)
  context.materials.set(source, material)
  return material
}

function isColor(value: unknown): value is { r: number; g: number; b: number } {
  return typeof value === 'object' && value !== null && 'r' in value && 'g' in value && 'b' in value
}
