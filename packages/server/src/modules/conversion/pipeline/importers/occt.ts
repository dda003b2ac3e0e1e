// STEP, IGES and BREP through occt-import-js (OpenCascade). The assembly tree and the part names
// are kept as the file declares them; colors become materials.
//
// Units: STEP and IGES are read in meters (occt converts from the file's declared unit). BREP files
// carry no unit; OpenCascade's convention is millimeters, so they are scaled by 1/1000.
// Axes: CAD tools mostly model Z-up (STEP's own examples do: the CAX-IF assemblies stand on XY),
// glTF is Y-up, so points turn (x, y, z) → (x, z, −y), the same rotation web-ifc applies to IFC.
// The turn is baked into the vertices: occt returns world-space triangles with no transforms.
import path from 'node:path'
import { Document, type Mesh, type mat4, type Node } from '@gltf-transform/core'
import { pipelineLogger } from '../io.ts'
import { attachProperties } from '../node-properties.ts'
import { ConversionError, type Importer } from '../types.ts'
import { extensionOf } from '../unpack.ts'
import { DEFAULT_COLOR, materialPalette, type Rgba, trianglePrimitive } from './cad-geometry.ts'
import { findRepeats } from './congruent.ts'
import type { Matrix } from './matrix.ts'
import {
  type OcctFormat,
  type OcctMesh,
  type OcctNode,
  type OcctParams,
  type OcctReply,
  readWithOcct,
} from './occt-worker.ts'
import { type ProductTree, readProductTree, restoreAssemblies, stepProperties } from './step-structure.ts'

const FORMATS: ReadonlyMap<string, { format: OcctFormat; label: string }> = new Map([
  ['.step', { format: 'step', label: 'STEP' }],
  ['.stp', { format: 'step', label: 'STEP' }],
  ['.iges', { format: 'iges', label: 'IGES' }],
  ['.igs', { format: 'iges', label: 'IGES' }],
  ['.brep', { format: 'brep', label: 'BREP' }],
])

/**
 * Deflection relative to the size of each top-level shape (0.1 % of its average bounding-box
 * edge), so a 20 m machine and a 20 mm screw both get a few thousand triangles per curved part
 * instead of millions for the big one; 0.5 rad caps the angle between neighboring facets so small
 * holes and fillets stay round. (occt-import-js's defaults, spelled out so an upgrade can't move them.)
 */
const PARAMS: OcctParams = {
  linearUnit: 'meter',
  linearDeflectionType: 'bounding_box_ratio',
  linearDeflection: 0.001,
  angularDeflection: 0.5,
}

export interface OcctImporterOptions {
  /**
   * How long reading may take before the file is deemed damaged. The default allows 30 s plus
   * 30 s per MB: the CAX-IF samples read at ~2 s per MB on one core.
   */
  timeoutMs?: (bytes: number) => number
}

export function createOcctImporter(options: OcctImporterOptions = {}): Importer {
  const timeoutMs = options.timeoutMs ?? ((bytes: number) => 30_000 + (bytes / 1e6) * 30_000)
  return async (input) => {
    const extension = extensionOf(input.name)
    const kind = FORMATS.get(extension)
    if (!kind) throw new ConversionError(`unsupported format: ${extension || '(no file extension)'}`)
    const { format, label } = kind
    if (input.bytes.byteLength === 0) throw new ConversionError(`the ${label} file is empty`)

    const reply = await readWithOcct(format, input.bytes, PARAMS, timeoutMs(input.bytes.byteLength))
    if (reply.kind !== 'ok') throw readFailure(reply, label)
    const stem = path.posix.basename(input.name, path.posix.extname(input.name))
    const products = format === 'step' ? readProductTree(input.bytes) : undefined
    if (products) reply.root = restoreAssemblies(reply.root, reply.meshes, products)
    const document = buildDocument(reply, stem, format === 'brep' ? 0.001 : 1)
    if (countTriangles(document) === 0) throw new ConversionError(`the ${label} file holds no geometry`)
    if (products) stampStepProperties(document, products)
    return document
  }
}

export const importOcct: Importer = createOcctImporter()

function readFailure(reply: Exclude<OcctReply, { kind: 'ok' }>, label: string): ConversionError {
  switch (reply.kind) {
    case 'failed':
      return new ConversionError(`the ${label} file cannot be read`)
    case 'crashed':
      return new ConversionError(`the ${label} file cannot be read`, { cause: new Error(reply.message) })
    case 'timeout':
      return new ConversionError(`the ${label} file cannot be read: reading it did not finish in time`)
  }
}

function buildDocument(reply: Extract<OcctReply, { kind: 'ok' }>, stem: string, scale: number): Document {
  const document = new Document().setLogger(pipelineLogger)
  const buffer = document.createBuffer()
  const palette = materialPalette(document)
  const scene = document.createScene(stem)
  document.getRoot().setDefaultScene(scene)

  for (const source of reply.meshes) toYUp(source, scale)
  const repeats = findRepeats(
    reply.meshes.map((mesh) => ({ ...mesh, key: JSON.stringify([mesh.color, mesh.faces]) })),
  )
  const built = new Map<number, Mesh | null>()
  // A repeated shape reuses the mesh of its first occurrence, placed by the node's transform.
  const meshOf = (index: number, name: string): { mesh: Mesh | null; matrix?: Matrix } => {
    const repeat = repeats.get(index)
    const original = repeat?.of ?? index
    const source = reply.meshes[original]
    if (!built.has(original)) built.set(original, source ? gltfMesh(source, name) : null)
    return { mesh: built.get(original) ?? null, matrix: repeat?.matrix }
  }

  const gltfMesh = (source: OcctMesh, name: string): Mesh | null => {
    const mesh = document.createMesh(name)
    for (const part of splitByColor(source)) {
      const primitive = trianglePrimitive(document, buffer, part, palette(part.color))
      if (primitive) mesh.addPrimitive(primitive)
    }
    if (mesh.listPrimitives().length > 0) return mesh
    mesh.dispose()
    return null
  }

  const meshNode = (index: number, fallbackName: string): Node => {
    const node = document.createNode(reply.meshes[index]?.name || fallbackName)
    const { mesh, matrix } = meshOf(index, node.getName())
    if (mesh && matrix) node.setMatrix(matrix as unknown as mat4)
    return mesh ? node.setMesh(mesh) : node
  }

  const assemblyNode = (source: OcctNode, fallbackName: string): Node => {
    const name = source.name || fallbackName
    const [only] = source.meshes
    const onlyMesh = only === undefined ? undefined : reply.meshes[only]
    // A part and its single solid usually share the name: one node, not a node holding a namesake.
    if (source.children.length === 0 && source.meshes.length === 1 && only !== undefined) {
      if (!onlyMesh?.name || onlyMesh.name === name) return meshNode(only, name)
    }
    const node = document.createNode(name)
    source.meshes.forEach((index, k) => {
      node.addChild(meshNode(index, `Shape ${k + 1}`))
    })
    source.children.forEach((child, k) => {
      node.addChild(assemblyNode(child, `Part ${k + 1}`))
    })
    return node
  }

  // occt's root is an unnamed wrapper: its children are the file's top-level shapes. Only a BREP
  // puts solids on the root itself; those get a root node named after the file.
  const roots = reply.root.meshes.length > 0 ? [{ ...reply.root, name: stem }] : reply.root.children
  roots.forEach((root, k) => {
    scene.addChild(assemblyNode(root, roots.length === 1 ? stem : `${stem} ${k + 1}`))
  })
  return document
}

/** Each node's STEP product and assembly path (the names of its ancestors, root first). */
function stampStepProperties(document: Document, products: ProductTree): void {
  const visit = (node: Node, path: readonly string[]): void => {
    attachProperties(node, stepProperties(node, path, products))
    for (const child of node.listChildren()) visit(child, [...path, node.getName()])
  }
  for (const root of document.getRoot().getDefaultScene()?.listChildren() ?? []) visit(root, [])
}

/** Z-up → Y-up and the unit scale, in place: (x, y, z) → (x, z, −y). */
function toYUp(mesh: OcctMesh, scale: number): void {
  const turn = (values: Float32Array, factor: number): void => {
    for (let i = 0; i + 2 < values.length; i += 3) {
      const y = values[i + 1] ?? 0
      values[i] = (values[i] ?? 0) * factor
      values[i + 1] = (values[i + 2] ?? 0) * factor
      values[i + 2] = -y * factor
    }
  }
  turn(mesh.position, scale)
  if (mesh.normal) turn(mesh.normal, 1)
}

interface ColoredGeometry {
  color: Rgba
  position: Float32Array
  normal: Float32Array | null
  index: Uint32Array
}

/**
 * The shape's color, or, when some of its B-rep faces carry their own colors (a red face on a grey
 * part), one primitive per distinct color, each with only the vertices its triangles use.
 */
function splitByColor(mesh: OcctMesh): ColoredGeometry[] {
  const base: Rgba = mesh.color ? [...mesh.color, 1] : DEFAULT_COLOR
  const colorOf = (face: OcctMesh['faces'][number]): Rgba => (face.color ? [...face.color, 1] : base)
  const keyOf = (color: Rgba): string => color.join(',')
  if (mesh.faces.every((face) => keyOf(colorOf(face)) === keyOf(base))) {
    return [{ color: base, position: mesh.position, normal: mesh.normal, index: mesh.index }]
  }

  const groups = new Map<string, { color: Rgba; triangles: [number, number][] }>()
  for (const face of mesh.faces) {
    const color = colorOf(face)
    const group = groups.get(keyOf(color)) ?? { color, triangles: [] }
    group.triangles.push([face.first, face.last])
    groups.set(keyOf(color), group)
  }
  return [...groups.values()].map(({ color, triangles }) => compact(mesh, color, triangles))
}

/** The triangles of the given inclusive ranges, with their vertices renumbered from 0. */
function compact(mesh: OcctMesh, color: Rgba, ranges: [number, number][]): ColoredGeometry {
  const remap = new Map<number, number>()
  const indices: number[] = []
  for (const [first, last] of ranges) {
    for (let i = first * 3; i < (last + 1) * 3 && i < mesh.index.length; i++) {
      const vertex = mesh.index[i] ?? 0
      let mapped = remap.get(vertex)
      if (mapped === undefined) {
        mapped = remap.size
        remap.set(vertex, mapped)
      }
      indices.push(mapped)
    }
  }
  const position = new Float32Array(remap.size * 3)
  const normal = mesh.normal ? new Float32Array(remap.size * 3) : null
  for (const [from, to] of remap) {
    position.set(mesh.position.subarray(from * 3, from * 3 + 3), to * 3)
    normal?.set((mesh.normal as Float32Array).subarray(from * 3, from * 3 + 3), to * 3)
  }
  return { color, position, normal, index: Uint32Array.from(indices) }
}

function countTriangles(document: Document): number {
  let triangles = 0
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) triangles += (primitive.getIndices()?.getCount() ?? 0) / 3
  }
  return triangles
}
