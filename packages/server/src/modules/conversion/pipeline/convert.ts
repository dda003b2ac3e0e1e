// The conversion pipeline: upload bytes → optimized GLB + scene tree. Pure (no DB, blobs or HTTP);
// the job runner calls it in a child process. Importers are loaded on first use, so a GLB job does
// not pay for three.js or assimp's wasm.
import { type Document, Primitive } from '@gltf-transform/core'
import type { InstancedMesh } from '@gltf-transform/extensions'
import { compactGlbJson } from './glb-json.ts'
import { pipelineIO } from './io.ts'
import { optimizeDocument } from './optimize.ts'
import { buildSceneTree, countTreeNodes, viewedScene } from './scene-tree.ts'
import {
  ConversionError,
  type ConversionResult,
  type Importer,
  type ModelInput,
  type ProgressReporter,
} from './types.ts'
import { extensionOf, type ImporterKind, MODEL_FORMATS, unpackUpload } from './unpack.ts'

export async function convertModel(
  upload: { name: string; bytes: Uint8Array },
  onProgress?: ProgressReporter,
): Promise<ConversionResult> {
  const report = onProgress ?? (() => {})
  report(0)
  const input = unpackUpload(upload)
  if (input.bytes.byteLength === 0) throw new ConversionError('the model file is empty')
  const importer = await importerFor(input)
  report(10)

  const document = await importer(input)
  if (!hasGeometry(document)) throw new ConversionError('the model holds no geometry')
  report(40)

  await optimizeDocument(document)
  report(85)

  const tree = buildSceneTree(document)
  const io = await pipelineIO()
  const glb = compactGlbJson(await io.writeBinary(document))
  report(100)
  return {
    glb,
    tree,
    stats: {
      inputBytes: upload.bytes.byteLength,
      outputBytes: glb.byteLength,
      triangles: countTriangles(document),
      nodes: countTreeNodes(tree),
    },
  }
}

async function importerFor(input: ModelInput): Promise<Importer> {
  const extension = extensionOf(input.name)
  const kind = MODEL_FORMATS.get(extension)
  if (!kind) throw new ConversionError(`unsupported format: ${extension || '(no file extension)'}`)
  return loadImporter(kind === 'mesh' && usesMaterialLibrary(input) ? 'assimp' : kind)
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
