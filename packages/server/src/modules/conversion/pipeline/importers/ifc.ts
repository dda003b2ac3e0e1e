// IFC (STEP physical file) through web-ifc: one node per product, following the spatial structure
// (ifc-structure.ts), each holding one primitive per placed geometry.
//
// Units and axes: web-ifc scales geometry to meters (applyLinearScalingFactor) and its placement
// matrices already turn IFC's Z-up into Y-up, (x, y, z) → (x, z, −y), the same turn occt.ts applies to
// CAD files, so no rotation is added here. COORDINATE_TO_ORIGIN moves georeferenced models (often
// hundreds of km from the origin) next to it: glTF positions are 32-bit floats, which would leave
// centimeter jitter out there. The georeference itself is not kept.
import path from 'node:path'
import { Document } from '@gltf-transform/core'
import { IfcAPI, LogLevel, type PlacedGeometry } from 'web-ifc'
import { pipelineLogger } from '../io.ts'
import { attachProperties, noteTruncation } from '../node-properties.ts'
import type { NodeProperties } from '../properties.ts'
import { ConversionError, type Importer } from '../types.ts'
import { materialPalette, type Rgba, trianglePrimitive } from './cad-geometry.ts'
import { ifcProperties } from './ifc-properties.ts'
import { addSpatialTree, type PlacedMesh } from './ifc-structure.ts'
import { IDENTITY, invertAffine, isTrs, type Matrix, multiply, sameMatrix } from './matrix.ts'

let apiPromise: Promise<IfcAPI> | undefined

/** One web-ifc instance per process: its wasm module takes a moment to compile. */
function ifcApi(): Promise<IfcAPI> {
  if (!apiPromise) {
    const created = createApi()
    apiPromise = created
    created.catch(() => {
      if (apiPromise === created) apiPromise = undefined
    })
  }
  return apiPromise
}

async function createApi(): Promise<IfcAPI> {
  const api = new IfcAPI()
  await api.Init(undefined, true)
  api.SetLogLevel(LogLevel.LOG_LEVEL_OFF)
  return api
}

export const importIfc: Importer = async (input) => {
  checkEnvelope(input.bytes)
  const api = await ifcApi()
  let modelID = -1
  let trapped = false
  try {
    modelID = api.OpenModel(input.bytes, { COORDINATE_TO_ORIGIN: true })
    if (modelID < 0) throw new ConversionError('the IFC file cannot be read')
    const stem = path.posix.basename(input.name, path.posix.extname(input.name))
    return buildDocument(api, modelID, stem)
  } catch (error) {
    if (error instanceof ConversionError) throw error
    // web-ifc traps (memory access out of bounds, …) on some malformed files it accepted.
    trapped = true
    throw new ConversionError('the IFC file cannot be read', { cause: error })
  } finally {
    release(api, modelID, trapped)
  }
}

/** Frees the model; after a trap the instance's heap may be inconsistent, so it is replaced. */
function release(api: IfcAPI, modelID: number, trapped: boolean): void {
  try {
    if (modelID >= 0) api.CloseModel(modelID)
    if (trapped) api.Dispose()
  } catch {
    trapped = true
  }
  if (trapped) apiPromise = undefined
}

/**
 * IFC files are ISO-10303-21 text naming an IFC schema, ending with END-ISO-10303-21. web-ifc
 * silently imports the first part of a truncated file and can crash on other STEP schemas.
 */
function checkEnvelope(bytes: Uint8Array): void {
  if (bytes.byteLength === 0) throw new ConversionError('the IFC file is empty')
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 64 * 1024))
  if (!head.slice(0, 1024).includes('ISO-10303-21')) throw new ConversionError('the file is not an IFC file')
  if (!/FILE_SCHEMA\s*\(\s*\(\s*'IFC/i.test(head)) throw new ConversionError('the file is not an IFC file')
  const tail = new TextDecoder('latin1').decode(bytes.subarray(Math.max(0, bytes.byteLength - 4096)))
  if (!tail.includes('END-ISO-10303-21')) throw new ConversionError('the IFC file is incomplete (truncated)')
}

function buildDocument(api: IfcAPI, modelID: number, stem: string): Document {
  const document = new Document().setLogger(pipelineLogger)
  const buffer = document.createBuffer()
  const palette = materialPalette(document)
  const meshes = new Map<number, PlacedMesh>()

  api.StreamAllMeshes(modelID, (flat) => {
    const mesh = document.createMesh()
    const placements = Array.from({ length: flat.geometries.size() }, (_, i) => flat.geometries.get(i))
    const frame = productFrame(placements.map((placed) => placed.flatTransformation))
    const toFrame = invertAffine(frame) ?? IDENTITY
    for (const placed of placements) {
      const geometry = api.GetGeometry(modelID, placed.geometryExpressID)
      try {
        const vertices = api.GetVertexArray(geometry.GetVertexData(), geometry.GetVertexDataSize())
        const indices = api.GetIndexArray(geometry.GetIndexData(), geometry.GetIndexDataSize())
        const transform = placed.flatTransformation
        // Exactly the frame: the geometry's own vertices, so every occurrence is byte-identical.
        const relative = sameMatrix(transform, frame) ? IDENTITY : multiply(toFrame, transform)
        const primitive = trianglePrimitive(
          document,
          buffer,
          placeVertices(vertices, indices, relative),
          palette(colorOf(placed)),
        )
        if (primitive) mesh.addPrimitive(primitive)
      } finally {
        geometry.delete()
      }
    }
    if (mesh.listPrimitives().length > 0) meshes.set(flat.expressID, { mesh, frame })
    else mesh.dispose()
  })
  if (meshes.size === 0) throw new ConversionError('the IFC file holds no geometry')

  const scene = document.createScene(stem)
  document.getRoot().setDefaultScene(scene)
  const { roots, nodes } = addSpatialTree(api, modelID, document, meshes)
  for (const root of roots) scene.addChild(root)
  const note = (what: string) => noteTruncation(document, what)
  for (const [expressID, properties] of ifcProperties(api, modelID, nodes.keys(), note)) {
    const node = nodes.get(expressID)
    if (node) attachProperties(node, properties)
  }
  for (const root of roots) attachProperties(root, originShift(api, modelID))
  return document
}

/**
 * How far COORDINATE_TO_ORIGIN moved the model, in IFC's world (Z up, metres), on the project's node
 * as `IFC` `originShift.x/y/z`: the file's own coordinates are the shown ones (turned back to Z up)
 * plus it. BCF viewpoints are written in the file's coordinates with it (modules/bcf/geometry.ts).
 * Nothing when the model was not moved.
 */
function originShift(api: IfcAPI, modelID: number): NodeProperties {
  const matrix = api.GetCoordinationMatrix(modelID)
  // The translation web-ifc applied, in its Y-up output: (x, y, z) there is (x, −z, y) in IFC.
  const [tx = 0, ty = 0, tz = 0] = matrix.slice(12, 15)
  if (Math.hypot(tx, ty, tz) < 1e-9) return { groups: {}, units: {} }
  const shift = { 'originShift.x': -tx, 'originShift.y': tz, 'originShift.z': -ty }
  return {
    groups: { IFC: shift },
    units: { IFC: { 'originShift.x': 'm', 'originShift.y': 'm', 'originShift.z': 'm' } },
  }
}

/**
 * The frame a product's geometry is stored in: its first placement (a window's, a column's), so
 * that repeated products hold identical vertices and are stored once (dedup), each node carrying
 * its placement. Identity (placement baked into the vertices) when a node cannot carry it.
 */
function productFrame(transforms: number[][]): Matrix {
  const [first] = transforms
  return first && first.length === 16 && isTrs(first) ? first : IDENTITY
}

/** IFC colors are sRGB (as authoring tools show them); glTF's baseColorFactor is linear. */
function colorOf(placed: PlacedGeometry): Rgba {
  const linear = (channel: number): number =>
    channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4
  const { x, y, z, w } = placed.color
  return [linear(x), linear(y), linear(z), w]
}

/**
 * web-ifc geometry: 6 floats per vertex (position, normal) in the geometry's own frame; `m`
 * (column-major 4×4) takes it into the product's frame (identity for the first placement).
 * Normals go through the cofactor matrix (the inverse transpose up to scale), which stays right
 * under the non-uniform scales of IfcCartesianTransformationOperator; a mirroring placement
 * also flips the winding so front faces stay front.
 */
function placeVertices(
  vertices: Float32Array,
  indices: Uint32Array,
  m: number[],
): { position: Float32Array; normal: Float32Array; index: Uint32Array } {
  const e = (k: number): number => m[k] ?? (k % 5 === 0 ? 1 : 0)
  const [a, b, c, d, f, g, h, i, j] = [e(0), e(4), e(8), e(1), e(5), e(9), e(2), e(6), e(10)]
  const det = a * (f * j - g * i) - b * (d * j - g * h) + c * (d * i - f * h)
  const sign = det < 0 ? -1 : 1
  // Cofactors of the row-major 3×3 [[a b c] [d f g] [h i j]], times the determinant's sign.
  const n = [
    f * j - g * i,
    g * h - d * j,
    d * i - f * h,
    c * i - b * j,
    a * j - c * h,
    b * h - a * i,
    b * g - c * f,
    c * d - a * g,
    a * f - b * d,
  ].map((value) => value * sign) as [number, number, number, number, number, number, number, number, number]

  const count = Math.floor(vertices.length / 6)
  const position = new Float32Array(count * 3)
  const normal = new Float32Array(count * 3)
  for (let v = 0; v < count; v++) {
    const x = vertices[v * 6] ?? 0
    const y = vertices[v * 6 + 1] ?? 0
    const z = vertices[v * 6 + 2] ?? 0
    position[v * 3] = a * x + b * y + c * z + e(12)
    position[v * 3 + 1] = d * x + f * y + g * z + e(13)
    position[v * 3 + 2] = h * x + i * y + j * z + e(14)
    const nx = vertices[v * 6 + 3] ?? 0
    const ny = vertices[v * 6 + 4] ?? 0
    const nz = vertices[v * 6 + 5] ?? 0
    normal[v * 3] = n[0] * nx + n[1] * ny + n[2] * nz
    normal[v * 3 + 1] = n[3] * nx + n[4] * ny + n[5] * nz
    normal[v * 3 + 2] = n[6] * nx + n[7] * ny + n[8] * nz
  }
  const index = Uint32Array.from(indices)
  if (det < 0) {
    for (let t = 0; t + 2 < index.length; t += 3) {
      const second = index[t + 1] ?? 0
      index[t + 1] = index[t + 2] ?? 0
      index[t + 2] = second
    }
  }
  return { position, normal, index }
}
