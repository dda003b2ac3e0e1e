// The conversion pipeline: upload bytes → optimized GLB + scene tree. Pure (no DB, blobs or HTTP);
// the job runner calls it in a child process. Importers are loaded on first use, so a GLB job does
// not pay for three.js or assimp's wasm.
import { type Document, Logger, Primitive } from '@gltf-transform/core'
import type { InstancedMesh } from '@gltf-transform/extensions'
import { cloneDocument } from '@gltf-transform/functions'
import { encodeSmallest, inputEncodingOf } from './encode.ts'
import { pipelineLogger } from './io.ts'
import { stampSourceProperties } from './node-properties.ts'
import { lightlyOptimize, prepareDocument } from './optimize.ts'
import { countTreeNodes, viewedScene } from './scene-tree.ts'
import { checkTexturePixels, type TextureMode, textureModeFromEnv } from './textures.ts'
import {
  ConversionError,
  type ConversionResult,
  type Importer,
  type ModelInput,
  type ProgressReporter,
} from './types.ts'
import { extensionOf, type ImporterKind, MODEL_FORMATS, unpackUpload } from './unpack.ts'

export interface ConvertOptions {
  /** Default: TESSERA_CONVERSION_TEXTURES, else `webp` (textures.ts). */
  textures?: TextureMode
}

export async function convertModel(
  upload: { name: string; bytes: Uint8Array },
  onProgress?: ProgressReporter,
  options: ConvertOptions = {},
): Promise<ConversionResult> {
  const textures = options.textures ?? textureModeFromEnv()
  const report = onProgress ?? (() => {})
  report(0)
  const input = unpackUpload(upload)
  if (input.bytes.byteLength === 0) throw new ConversionError('the model file is empty')
  report(5)
  const kind = importerKind(input)
  const importer = await loadImporter(kind)
  report(10)

  const document = await importer(input)
  if (!hasGeometry(document)) throw new ConversionError('the model holds no geometry')
  // IFC describes its materials itself; its meshes are named after their products.
  stampSourceProperties(document, { meshNames: kind !== 'ifc' })
  checkTexturePixels(document)
  report(40)

  // Compressed inputs were decoded on read; which compression they used decides the candidates.
  const inputEncoding = inputEncodingOf(document)
  for (const extension of document.getRoot().listExtensionsUsed()) {
    const name = extension.extensionName
    if (name === 'KHR_draco_mesh_compression' || name === 'EXT_meshopt_compression') extension.dispose()
  }
  const asRead = inputEncoding.meshopt ? cloneDocument(document) : undefined
  if (asRead) await lightlyOptimize(asRead, textures)
  // The optimization pass is the longest stage on big meshes (weld, simplify, …): each of its
  // transforms moves the progress on when it logs its completion.
  document.setLogger(
    new StageLogger((done) => report(40 + (45 * Math.min(done, OPTIMIZE_STEPS)) / OPTIMIZE_STEPS)),
  )
  await prepareDocument(document, textures)
  document.setLogger(pipelineLogger)
  report(85)

  const encoded = await encodeSmallest(document, inputEncoding, asRead)
  report(100)
  return {
    glb: encoded.glb,
    tree: encoded.tree,
    properties: encoded.properties,
    propertiesTruncated: encoded.propertiesTruncated,
    stats: {
      inputBytes: upload.bytes.byteLength,
      outputBytes: encoded.glb.byteLength,
      triangles: countTriangles(encoded.document),
      nodes: countTreeNodes(encoded.tree),
      encoding: encoded.choice,
    },
  }
}

/** How many `<transform>: Complete.` lines prepareDocument logs (dedup, palette, weld, simplify, resample, prune, sparse). */
const OPTIMIZE_STEPS = 7

/**
 * Counts glTF-Transform's `<transform>: Complete.` debug lines (one per finished transform) for
 * progress; errors still go to the pipeline's logger, the rest is dropped as before.
 */
class StageLogger extends Logger {
  #done = 0
  readonly #onStep: (done: number) => void
  constructor(onStep: (done: number) => void) {
    super(Logger.Verbosity.DEBUG)
    this.#onStep = onStep
  }
  override debug(text: string): void {
    if (text.endsWith(': Complete.')) this.#onStep(++this.#done)
  }
  override info(): void {}
  override warn(): void {}
  override error(text: string): void {
    pipelineLogger.error(text)
  }
}

function importerKind(input: ModelInput): ImporterKind {
  const extension = extensionOf(input.name)
  const kind = MODEL_FORMATS.get(extension)
  if (!kind) throw new ConversionError(`unsupported format: ${extension || '(no file extension)'}`)
  return kind === 'mesh' && usesMaterialLibrary(input) ? 'assimp' : kind
}

async function loadImporter(kind: ImporterKind): Promise<Importer> {
  switch (kind) {
    case 'gltf':
      return (await import('./importers/gltf.ts')).importGltf
    case 'mesh':
      return (await import('./importers/mesh.ts')).importMesh
    case 'assimp':
      return (await import('./importers/assimp.ts')).importAssimp
    case 'occt':
      return (await import('./importers/occt.ts')).importOcct
    case 'ifc':
      return (await import('./importers/ifc.ts')).importIfc
  }
}

/**
 * An OBJ whose `mtllib` is among the uploaded files goes to assimp, which applies the MTL's
 * materials and textures; three's OBJ loader would need a DOM for those.
 */
function usesMaterialLibrary(input: ModelInput): boolean {
  if (extensionOf(input.name) !== '.obj' || input.files.size === 0) return false
  const sideNames = new Set([...input.files.keys()].map((key) => key.split('/').pop()?.toLowerCase()))
  // mtllib lines sit in the header; scanning the first MiB avoids decoding a huge OBJ twice.
  const head = new TextDecoder().decode(input.bytes.subarray(0, 1024 * 1024))
  for (const match of head.matchAll(/^mtllib[ \t]+(.+?)[ \t]*$/gm)) {
    const library = match[1]?.replaceAll('\\', '/').split('/').pop()?.toLowerCase()
    if (library && sideNames.has(library)) return true
  }
  return false
}

function hasGeometry(document: Document): boolean {
  let found = false
  viewedScene(document)?.traverse((node) => {
    const mesh = node.getMesh()
    if (
      mesh?.listPrimitives().some((primitive) => (primitive.getAttribute('POSITION')?.getCount() ?? 0) > 0)
    ) {
      found = true
    }
  })
  return found
}

/** Triangles drawn for the viewed scene: instanced meshes count once per instance. */
function countTriangles(document: Document): number {
  let triangles = 0
  viewedScene(document)?.traverse((node) => {
    const mesh = node.getMesh()
    if (!mesh) return
    const batch = node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing')
    const instances = batch?.listAttributes()[0]?.getCount() ?? 1
    for (const primitive of mesh.listPrimitives()) triangles += primitiveTriangles(primitive) * instances
  })
  return triangles
}

function primitiveTriangles(primitive: Primitive): number {
  const vertices = primitive.getIndices()?.getCount() ?? primitive.getAttribute('POSITION')?.getCount() ?? 0
  switch (primitive.getMode()) {
    case Primitive.Mode.TRIANGLES:
      return Math.floor(vertices / 3)
    case Primitive.Mode.TRIANGLE_STRIP:
    case Primitive.Mode.TRIANGLE_FAN:
      return Math.max(0, vertices - 2)
    default:
      return 0
  }
}
