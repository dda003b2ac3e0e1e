// Upload → ModelInput: format detection by extension, and `.zip` uploads unpacked with guards so a
// zip bomb stops after a bounded amount of work and memory.
import path from 'node:path'
import { Unzip, type UnzipFile, UnzipInflate } from 'fflate'
import { ConversionError, type ModelInput } from './types.ts'

/** The importer family that handles a model format. */
export type ImporterKind = 'gltf' | 'mesh' | 'assimp' | 'occt' | 'ifc'

/** Model file extensions (lower case, with the dot) and who imports them. */
export const MODEL_FORMATS: ReadonlyMap<string, ImporterKind> = new Map([
  ['.glb', 'gltf'],
  ['.gltf', 'gltf'],
  ['.stl', 'mesh'],
  ['.ply', 'mesh'],
  ['.obj', 'mesh'], // an OBJ with a material library goes to assimp instead, see importers/mesh.ts
  ['.fbx', 'assimp'],
  ['.3mf', 'assimp'],
  ['.3ds', 'assimp'],
  ['.dae', 'assimp'],
  ['.step', 'occt'],
  ['.stp', 'occt'],
  ['.iges', 'occt'],
  ['.igs', 'occt'],
  ['.brep', 'occt'],
  ['.ifc', 'ifc'],
])

const ZIP_LIMITS = {
  maxEntries: 10_000,
  /** Hard cap on the unpacked size, whatever the zip's size. */
  maxTotalBytes: 2 * 1024 ** 3,
  /** Unpacking may always reach this much… */
  freeBytes: 64 * 1024 ** 2,
  /** …and beyond it at most this many times the zip's own size (real models compress < 20:1). */
  maxRatio: 100,
  /** Compressed bytes fed to the inflater at a time: bounds what one step can produce (~1032×). */
  chunkBytes: 16 * 1024,
}

/** The lower-cased extension with its dot (`.glb`), or '' when the name has none. */
export function extensionOf(name: string): string {
  return path.posix.extname(name.replaceAll('\\', '/')).toLowerCase()
}

/** Turns an upload into the importer's input, unpacking a `.zip` and picking the model inside. */
export function unpackUpload(upload: { name: string; bytes: Uint8Array }): ModelInput {
  if (extensionOf(upload.name) !== '.zip') {
    return {
      name: path.posix.basename(upload.name.replaceAll('\\', '/')),
      bytes: upload.bytes,
      files: new Map(),
    }
  }
  const entries = unzipGuarded(upload.bytes)
  const modelPath = pickModel([...entries.keys()])
  const folder = path.posix.dirname(modelPath)
  const files = new Map<string, Uint8Array>()
  for (const [entryPath, bytes] of entries) {
    if (entryPath !== modelPath) files.set(path.posix.relative(folder, entryPath), bytes)
  }
  const bytes = entries.get(modelPath) ?? new Uint8Array()
  return { name: path.posix.basename(modelPath), bytes, files }
}

/**
 * The one model in a zip: glTF/GLB files win over other formats (a glTF bundle often carries the
 * source file it was exported from); two candidates of the same rank are ambiguous.
 */
function pickModel(entryPaths: string[]): string {
  const models = entryPaths.filter((entryPath) => MODEL_FORMATS.has(extensionOf(entryPath)))
  const gltfs = models.filter((entryPath) => MODEL_FORMATS.get(extensionOf(entryPath)) === 'gltf')
  const candidates = gltfs.length > 0 ? gltfs : models
  const [only, ...others] = candidates
  if (only === undefined) throw new ConversionError('the zip holds no supported model file')
  if (others.length > 0) {
    const listed = candidates.slice(0, 3).map((entryPath) => path.posix.basename(entryPath))
    throw new ConversionError(
      `the zip holds ${candidates.length} model files (${listed.join(', ')}${candidates.length > 3 ? ', …' : ''}); upload one model per zip`,
    )
  }
  return only
}

/** Unzips into memory, counting entries and inflated bytes as they come, and stops at a limit. */
function unzipGuarded(zip: Uint8Array): Map<string, Uint8Array> {
  const allowedBytes = Math.min(
    ZIP_LIMITS.maxTotalBytes,
    Math.max(ZIP_LIMITS.freeBytes, zip.byteLength * ZIP_LIMITS.maxRatio),
  )
  const chunksByPath = new Map<string, Uint8Array[]>()
  let entryCount = 0
  let totalBytes = 0
  let failure: ConversionError | undefined

  const unzipper = new Unzip((file: UnzipFile) => {
    if (failure) return
    entryCount++
    if (entryCount > ZIP_LIMITS.maxEntries) {
      failure = new ConversionError(`the zip holds more than ${ZIP_LIMITS.maxEntries} entries`)
      return
    }
    const entryPath = normalizeEntryPath(file.name)
    if (entryPath === undefined) return // folders, macOS metadata, paths escaping the archive
    if (file.compression !== 0 && file.compression !== 8) {
      failure = new ConversionError('the zip uses a compression method other than deflate')
      return
    }
    const chunks: Uint8Array[] = []
    chunksByPath.set(entryPath, chunks)
    file.ondata = (error, data) => {
      if (failure) return
      if (error) {
        failure = new ConversionError('the zip is damaged')
        return
      }
      totalBytes += data.byteLength
      if (totalBytes > allowedBytes) {
        failure = new ConversionError('the zip unpacks to too much data (zip bomb?)')
        file.terminate()
        return
      }
      chunks.push(data)
    }
    file.start()
  })
  unzipper.register(UnzipInflate)

  try {
    for (let offset = 0; offset < zip.byteLength && !failure; offset += ZIP_LIMITS.chunkBytes) {
      const end = Math.min(offset + ZIP_LIMITS.chunkBytes, zip.byteLength)
      unzipper.push(zip.subarray(offset, end), end === zip.byteLength)
    }
  } catch {
    // fflate throws on malformed local headers, bad deflate streams, encrypted entries…
    failure ??= new ConversionError('the zip is damaged or encrypted')
  }
  if (failure) throw failure

  const entries = new Map<string, Uint8Array>()
  for (const [entryPath, chunks] of chunksByPath) entries.set(entryPath, concatChunks(chunks))
  return entries
}

/** `a\b/./c.png` → `a/b/c.png`; undefined for entries we skip. */
function normalizeEntryPath(name: string): string | undefined {
  const unified = name.replaceAll('\\', '/')
  if (unified.endsWith('/')) return undefined
  const normalized = path.posix.normalize(unified)
  if (normalized.startsWith('/') || normalized === '..' || normalized.startsWith('../')) return undefined
  if (normalized.startsWith('__MACOSX/') || path.posix.basename(normalized).startsWith('._')) return undefined
  return normalized
}

function concatChunks(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0]
  const joined = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0))
  let offset = 0
  for (const chunk of chunks) {
    joined.set(chunk, offset)
    offset += chunk.byteLength
  }
  return joined
}
