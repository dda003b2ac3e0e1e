// glTF 2.0 in: `.glb`, and `.gltf` with its buffers and images embedded as data URIs or shipped
// beside it in the zip. URIs are only ever resolved against the uploaded files, never fetched.
import path from 'node:path'
import { type Document, GLB_BUFFER, type JSONDocument, type NodeIO } from '@gltf-transform/core'
import { enableDracoDecoding, pipelineIO } from '../io.ts'
import { ConversionError, type Importer, type ModelInput } from '../types.ts'
import { extensionOf } from '../unpack.ts'
import { checkDeclaredSizes } from './gltf-bounds.ts'

const GLB_MAGIC = 0x46546c67 // 'glTF'
const GLB_JSON_CHUNK = 0x4e4f534a // 'JSON'
const GLB_BIN_CHUNK = 0x004e4942 // 'BIN\0'

export interface GltfJson {
  asset?: { version?: unknown }
  extensionsUsed?: unknown
  buffers?: Array<{ uri?: unknown }>
  bufferViews?: unknown
  accessors?: unknown
  images?: Array<{ uri?: unknown }>
}

export const importGltf: Importer = async (input) => {
  const io = await pipelineIO()
  const isGlb = extensionOf(input.name) === '.glb'
  const { json, bin } = isGlb ? parseGlb(input.bytes) : { json: parseJson(input.bytes), bin: undefined }
  if (typeof json.asset?.version !== 'string' || !json.asset.version.startsWith('2.')) {
    throw new ConversionError('only glTF 2.0 files are supported')
  }
  const extensionsUsed = Array.isArray(json.extensionsUsed) ? json.extensionsUsed : []
  if (extensionsUsed.includes('KHR_draco_mesh_compression')) await enableDracoDecoding(io)
  // Compressed geometry is decoded on read; the extensions stay listed so that convert.ts knows
  // which encoding the input had (it may keep it: encode.ts).
  return readWithSideFiles(io, json, bin, input.files, uploadBytes(input.bytes, input.files))
}

/** A GLB's JSON and BIN chunks, checked enough to give clear messages for non-GLB or cut-off files. */
export function parseGlb(bytes: Uint8Array): { json: GltfJson; bin: Uint8Array | undefined } {
  if (bytes.byteLength < 20) throw new ConversionError('not a GLB file (too short)')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(0, true) !== GLB_MAGIC) throw new ConversionError('not a GLB file (bad header)')
  const declaredLength = view.getUint32(8, true)
  if (declaredLength > bytes.byteLength) {
    throw new ConversionError(`truncated GLB: ${bytes.byteLength} of ${declaredLength} bytes`)
  }
  const jsonLength = view.getUint32(12, true)
  if (view.getUint32(16, true) !== GLB_JSON_CHUNK || 20 + jsonLength > declaredLength) {
    throw new ConversionError('not a GLB file (bad JSON chunk)')
  }
  const json = parseJson(bytes.subarray(20, 20 + jsonLength))
  const binStart = 20 + jsonLength
  if (binStart + 8 > declaredLength || view.getUint32(binStart + 4, true) !== GLB_BIN_CHUNK) {
    return { json, bin: undefined }
  }
  const binLength = view.getUint32(binStart, true)
  if (binStart + 8 + binLength > declaredLength) throw new ConversionError('truncated GLB: BIN chunk cut off')
  return { json, bin: bytes.subarray(binStart + 8, binStart + 8 + binLength) }
}

function parseJson(bytes: Uint8Array): GltfJson {
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    throw new ConversionError('the glTF JSON cannot be parsed')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConversionError('the glTF JSON is not an object')
  }
  return parsed as GltfJson
}

/**
 * Reads glTF JSON (+ GLB BIN chunk) into a document, resolving relative URIs against the uploaded
 * side files. A missing buffer is fatal; a missing image only loses that texture (models are often
 * uploaded without every texture, and the geometry is still worth showing). The sizes the JSON
 * declares are checked against `inputBytes` first (gltf-bounds.ts).
 */
export async function readWithSideFiles(
  io: NodeIO,
  json: GltfJson,
  bin: Uint8Array | undefined,
  files: ModelInput['files'],
  inputBytes: number,
): Promise<Document> {
  const resources: Record<string, Uint8Array<ArrayBuffer>> = {}
  if (bin) resources[GLB_BUFFER] = bin as Uint8Array<ArrayBuffer>
  for (const buffer of json.buffers ?? []) {
    const uri = buffer.uri
    if (typeof uri !== 'string' || uri.startsWith('data:')) continue
    const file = findSideFile(files, uri)
    if (!file) throw new ConversionError(`the model refers to a missing file: ${path.posix.basename(uri)}`)
    resources[uri] = file as Uint8Array<ArrayBuffer>
  }
  for (const image of json.images ?? []) {
    const uri = image.uri
    if (typeof uri !== 'string' || uri.startsWith('data:')) continue
    resources[uri] = (findSideFile(files, uri) ?? new Uint8Array()) as Uint8Array<ArrayBuffer>
  }
  checkDeclaredSizes(
    json as Record<string, unknown>,
    (index) => bufferBytes(json, index, resources),
    inputBytes,
  )
  let document: Document
  try {
    document = await io.readJSON({ json: json as JSONDocument['json'], resources })
  } catch (error) {
    throw invalidGltf(error)
  }
  for (const texture of document.getRoot().listTextures()) {
    if ((texture.getImage()?.byteLength ?? 0) === 0) texture.dispose()
  }
  return document
}

/** The bytes buffer `index` has as given: its side file, its data URI's payload, or the GLB's BIN. */
function bufferBytes(
  json: GltfJson,
  index: number,
  resources: Record<string, Uint8Array>,
): number | undefined {
  const uri = json.buffers?.[index]?.uri
  if (typeof uri !== 'string') return resources[GLB_BUFFER]?.byteLength
  if (!uri.startsWith('data:')) return resources[uri]?.byteLength
  const comma = uri.indexOf(',')
  const payload = comma < 0 ? 0 : uri.length - comma - 1
  return uri.slice(0, comma).endsWith(';base64') ? Math.floor((payload * 3) / 4) : payload
}

/** What the declared sizes are measured against: the model file and every side file. */
export function uploadBytes(model: Uint8Array, files: ModelInput['files']): number {
  let bytes = model.byteLength
  for (const file of files.values()) bytes += file.byteLength
  return bytes
}

/**
 * The side file a URI names: by its path relative to the model (percent-decoded, `./` and `a/../`
 * resolved), else by file name alone, case-insensitively, when exactly one file has it — exporters
 * write absolute or Windows paths, and zips get reorganized.
 */
function findSideFile(files: ModelInput['files'], uri: string): Uint8Array | undefined {
  let decoded = uri
  try {
    decoded = decodeURIComponent(uri)
  } catch {
    // keep the raw URI: a literal '%' in a file name
  }
  const relative = path.posix.normalize(decoded.replaceAll('\\', '/'))
  const exact = files.get(relative)
  if (exact) return exact
  const fileName = path.posix.basename(relative).toLowerCase()
  const sameName = [...files.keys()].filter((key) => path.posix.basename(key).toLowerCase() === fileName)
  return sameName.length === 1 && sameName[0] !== undefined ? files.get(sameName[0]) : undefined
}

/** glTF-Transform's read errors are about the file's content; keep their text short and path-free. */
function invalidGltf(error: unknown): ConversionError {
  if (error instanceof ConversionError) return error
  const reason = error instanceof Error ? error.message.split('\n')[0]?.slice(0, 160) : undefined
  return new ConversionError(reason ? `invalid glTF: ${reason}` : 'invalid glTF')
}
