// The final encoding, chosen per file by size: "never bigger, never worse". meshopt (the reference,
// what `gltf-transform optimize --compress meshopt` writes) is always tried; an input that came
// Draco-compressed is also re-encoded with Draco at (at least) its own precision, and an input that
// came meshopt-compressed is also written as it was read (its own quantization, no re-processing).
// The smallest GLB wins; each candidate gets its own scene tree, since quantization may add a node.
import type { Document } from '@gltf-transform/core'
import { EXTMeshoptCompression } from '@gltf-transform/extensions'
import { cloneDocument, draco } from '@gltf-transform/functions'
import { compactGlbJson } from './glb-json.ts'
import { enableDracoEncoding, pipelineIO } from './io.ts'
import { type PropertyEntry, Truncations, takeProperties } from './node-properties.ts'
import { meshoptEncoding } from './optimize.ts'
import { estimateQuantizationBits } from './quantization.ts'
import { buildSceneTree } from './scene-tree.ts'
import type { EncodingChoice, TreeNode } from './types.ts'

type Encoding = EncodingChoice['chosen']

/** Compression extensions an input used, read before the importer drops them. */
export interface InputEncoding {
  draco: boolean
  meshopt: boolean
}

export function inputEncodingOf(document: Document): InputEncoding {
  const names = new Set(
    document
      .getRoot()
      .listExtensionsUsed()
      .map((extension) => extension.extensionName),
  )
  return { draco: names.has('KHR_draco_mesh_compression'), meshopt: names.has('EXT_meshopt_compression') }
}

interface Encoded {
  encoding: Encoding
  glb: Uint8Array
  tree: TreeNode[]
  /** The nodes' own properties, moved out of the GLB (node-properties.ts); what was cut, noted. */
  properties: PropertyEntry[]
  propertiesTruncated: string[]
  document: Document
}

/**
 * Encodes `prepared` (optimized up to the final compression) as every candidate the input allows,
 * and returns the smallest. `asRead` is the input document processed without touching its
 * geometry (see convert.ts), offered only for meshopt inputs.
 */
export async function encodeSmallest(
  prepared: Document,
  input: InputEncoding,
  asRead?: Document,
): Promise<Encoded & { choice: EncodingChoice }> {
  // Candidates besides meshopt work on copies: meshopt() changes the document it is given.
  const dracoSource = input.draco ? cloneDocument(prepared) : undefined
  const candidates: Encoded[] = [await finish('meshopt', prepared, meshoptEncode)]
  if (dracoSource) candidates.push(...(await optional(finish('draco', dracoSource, dracoEncode))))
  if (asRead && input.meshopt) candidates.push(...(await optional(finish('input', asRead, keepMeshopt))))
  const best = candidates.reduce((a, b) => (b.glb.byteLength < a.glb.byteLength ? b : a))
  const sizes: EncodingChoice['sizes'] = {}
  for (const candidate of candidates) sizes[candidate.encoding] = candidate.glb.byteLength
  return { ...best, choice: { chosen: best.encoding, sizes } }
}

/**
 * A candidate besides meshopt only ever makes the file smaller; if its encoder rejects the
 * document (a primitive Draco cannot hold), the file simply does not get it.
 */
async function optional(candidate: Promise<Encoded>): Promise<Encoded[]> {
  try {
    return [await candidate]
  } catch {
    return []
  }
}

async function finish(
  encoding: Encoding,
  document: Document,
  encode: (document: Document) => Promise<void> | void,
): Promise<Encoded> {
  await encode(document)
  const tree = buildSceneTree(document)
  const truncations = new Truncations()
  const properties = takeProperties(document, truncations)
  const io = await pipelineIO()
  const glb = compactGlbJson(await io.writeBinary(document))
  return { encoding, glb, tree, properties, propertiesTruncated: truncations.list(), document }
}

async function meshoptEncode(document: Document): Promise<void> {
  await document.transform(meshoptEncoding())
}

/**
 * Draco at the precision the input had: a decoded Draco attribute lies on its quantization grid,
 * so re-encoding with the same number of bits over the same box loses nothing more. Speed 0 is
 * Draco's smallest setting; three's DRACOLoader decodes every setting.
 */
async function dracoEncode(document: Document): Promise<void> {
  await enableDracoEncoding(await pipelineIO())
  const bits = estimateQuantizationBits(document)
  await document.transform(
    draco({
      method: 'edgebreaker',
      encodeSpeed: 0,
      decodeSpeed: 0,
      quantizePosition: bits.position,
      quantizeTexcoord: bits.texcoord,
      quantizeNormal: 10,
      quantizeColor: 10,
      quantizeGeneric: 12,
    }),
  )
}

/** The input's own meshopt encoding (its quantized accessors as read), with meshopt's filters. */
function keepMeshopt(document: Document): void {
  document
    .createExtension(EXTMeshoptCompression)
    .setRequired(true)
    .setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.FILTER })
}
