// The contract between the conversion pipeline's parts. The pipeline is pure: bytes in, GLB bytes
// and a scene tree out; no database, no blobs, no HTTP. It runs in a child process (see ../runner.ts).
import type { Document } from '@gltf-transform/core'
import type { PropertyEntry } from './node-properties.ts'

/** One uploaded model: the main file and, when it came in a .zip, its side files. */
export interface ModelInput {
  /** File name of the main model, e.g. `house.obj` (from the upload, or the model's path inside the zip). */
  name: string
  bytes: Uint8Array
  /**
   * Side files (.bin, .mtl, textures, …) keyed by their path relative to the main file's folder,
   * `/`-separated, as written inside the zip. Empty for a single-file upload.
   */
  files: ReadonlyMap<string, Uint8Array>
}

/**
 * A failure the user can act on ("unsupported format: .xyz", "the STL file holds no triangles",
 * "truncated GLB: …"). Its message is stored on the file record as `error` and sent in
 * `file_optimization_failed`, so it must be short, plain and never hold paths or stack traces.
 * Any other error is reported as "conversion failed: internal error" and logged.
 */
export class ConversionError extends Error {
  override name = 'ConversionError'
}

/** Turns a model into a glTF-Transform document, keeping the model's node hierarchy and names. */
export type Importer = (input: ModelInput) => Promise<Document>

/** A node of the scene tree, as stored and served by GET /file/:id/scene-tree. */
export interface TreeNode {
  id: string
  name: string
  children: TreeNode[]
}

export interface ConversionResult {
  /** The optimized binary glTF. */
  glb: Uint8Array
  /** The scene's root nodes with their descendants; IDs as written in each node's `extras.tesseraId`. */
  tree: TreeNode[]
  /** What the model says about its nodes (docs/conversion.md, "Model properties"), in tree order. */
  properties: PropertyEntry[]
  /** What the bounds on properties cut, e.g. `value length (3 nodes)`; empty when nothing. */
  propertiesTruncated: string[]
  stats: {
    inputBytes: number
    outputBytes: number
    triangles: number
    nodes: number
    /** The final encoding chosen (smallest wins), with the size of every candidate tried. */
    encoding: EncodingChoice
  }
}

/**
 * `meshopt`: re-encoded as gltf-transform's optimize does; `draco`: a Draco input re-encoded with
 * Draco at its own precision; `input`: a meshopt input written with its own quantization.
 */
export interface EncodingChoice {
  chosen: 'meshopt' | 'draco' | 'input'
  sizes: Partial<Record<'meshopt' | 'draco' | 'input', number>>
}

/** Reports progress 0–100; called a handful of times per conversion, never per vertex. */
export type ProgressReporter = (percent: number) => void
