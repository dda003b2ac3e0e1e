// The optimization pass: what `gltf-transform optimize --compress meshopt` does (see
// @gltf-transform/cli src/cli.ts), minus flatten/join, with instancing and leaf pruning replaced by
// versions that keep named nodes (docs/conversion.md, "Optimization").
import type { Document, Transform } from '@gltf-transform/core'
import {
  dedup,
  meshopt,
  palette,
  prune,
  resample,
  simplifyPrimitive,
  sparse,
  weld,
} from '@gltf-transform/functions'
import { MeshoptEncoder, MeshoptSimplifier } from 'meshoptimizer'
import { pipelineIO } from './io.ts'
import { instanceAnonymousMeshes, keepViewedSceneOnly, pruneAnonymousLeaves } from './named-nodes.ts'
import { capAndRecompressTextures, type TextureMode } from './textures.ts'

/** The CLI's defaults, kept so that our output is comparable (and the bench fair). */
const OPTIMIZE_SETTINGS = {
  instanceMin: 5,
  paletteMin: 5,
  /** Simplification error bound, as a fraction of the mesh's extent: visually lossless. */
  simplifyError: 0.0001,
  meshoptLevel: 'high',
} as const

/**
 * Every step of the reference except its final encoding (meshopt), which encode.ts picks. Geometry
 * is processed (welded, simplified) the same whichever encoding wins.
 */
export async function prepareDocument(document: Document, textures: TextureMode = 'webp'): Promise<void> {
  await pipelineIO() // the meshopt encoder and simplifier wasm are ready once this resolves
  await document.transform(
    keepViewedSceneOnly(),
    // Shares identical accessors, meshes, materials and textures; nodes are never merged.
    dedup(),
    instanceAnonymousMeshes(OPTIMIZE_SETTINGS.instanceMin),
    // Many flat-coloured materials → one material reading a small palette texture.
    palette({ min: OPTIMIZE_SETTINGS.paletteMin }),
    // Indexes geometry and merges equal vertices: required by simplify and by meshopt's codecs.
    weld(),
    simplifyTriangles(OPTIMIZE_SETTINGS.simplifyError),
    resample(),
    // keepLeaves: prune() would delete empty named nodes; pruneAnonymousLeaves removes the rest.
    prune({ keepAttributes: false, keepIndices: false, keepLeaves: true, keepSolidTextures: false }),
    pruneAnonymousLeaves(),
    sparse(),
    capAndRecompressTextures(textures),
  )
}

/**
 * Reorders for locality, quantizes (KHR_mesh_quantization) and marks buffers for
 * EXT_meshopt_compression, which the writer applies.
 */
export function meshoptEncoding(): Transform {
  return meshopt({ encoder: MeshoptEncoder, level: OPTIMIZE_SETTINGS.meshoptLevel })
}

/**
 * What an input already compressed with meshopt gets as its "as read" candidate (encode.ts): no
 * geometry processing (its quantization stays), only what shares or drops data, and textures.
 */
export async function lightlyOptimize(document: Document, textures: TextureMode = 'webp'): Promise<void> {
  await document.transform(
    keepViewedSceneOnly(),
    dedup(),
    prune({ keepAttributes: false, keepIndices: false, keepLeaves: true, keepSolidTextures: false }),
    pruneAnonymousLeaves(),
    capAndRecompressTextures(textures),
  )
}

const TRIANGLE_MODES = new Set([4, 5, 6]) // TRIANGLES, TRIANGLE_STRIP, TRIANGLE_FAN

/**
 * simplify() as the CLI runs it (ratio 0, bounded by `error`), on triangles only: for point clouds
 * meshoptimizer has no error bound, and ratio 0 would delete every point.
 */
function simplifyTriangles(error: number): Transform {
  return function simplifyTriangles(document: Document): void {
    for (const mesh of document.getRoot().listMeshes()) {
      for (const primitive of mesh.listPrimitives()) {
        if (!TRIANGLE_MODES.has(primitive.getMode())) continue
        simplifyPrimitive(primitive, { simplifier: MeshoptSimplifier, error, ratio: 0, lockBorder: false })
        if ((primitive.getIndices()?.getCount() ?? 1) === 0) primitive.dispose()
      }
    }
  }
}
