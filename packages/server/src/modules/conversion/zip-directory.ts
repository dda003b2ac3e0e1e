// The entry names of a stored zip, from its central directory (at the end of the file): read with
// two ranged reads, whatever the zip's size. Zip64 directories are followed.
import path from 'node:path'
import type { StoredBytesReader } from '../files/index.ts'

const EOCD = 0x06054b50
const ZIP64_LOCATOR = 0x07064b50
const ZIP64_EOCD = 0x06064b50
const CENTRAL_ENTRY = 0x02014b50
/** End of central directory record (22) plus the longest comment (65,535). */
const TAIL_BYTES = 22 + 0xffff
/** A directory larger than this is not read here (10,000 entries with long names fit). */
const MAX_DIRECTORY_BYTES = 16 * 1024 * 1024

/**
 * The names of the zip's entries that the conversion would look at (no folders, macOS metadata or
 * paths escaping the archive), or null when no directory can be read (the zip is damaged or cut
 * off, or its directory is larger than we read).
 */
export async function zipEntryNames(size: number, read: StoredBytesReader): Promise<string[] | null> {
  if (size < 22) return null
  const tailStart = Math.max(0, size - TAIL_BYTES)
  const tail = await read(tailStart, size - 1)
  const found = await findDirectory(tail, read)
  if (!found || found.size > MAX_DIRECTORY_BYTES || found.offset + found.size > size) return null
  if (found.size === 0) return []
  const directory = await read(found.offset, found.offset + found.size - 1)
  return parseDirectory(directory)
}

async function findDirectory(
  tail: Uint8Array,
  read: StoredBytesReader,
): Promise<{ offset: number; size: number } | null> {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength)
  for (let at = tail.byteLength - 22; at >= 0; at--) {
    if (view.getUint32(at, true) !== EOCD) continue
    const size = view.getUint32(at + 12, true)
    const offset = view.getUint32(at + 16, true)
    if (size !== 0xffffffff && offset !== 0xffffffff) return { offset, size }
    // Zip64: the locator sits just before the end record and points at the zip64 end record.
    if (at < 20 || view.getUint32(at - 20, true) !== ZIP64_LOCATOR) return null
    const record = Number(view.getBigUint64(at - 20 + 8, true))
    const zip64 = await read(record, record + 55)
    const z = new DataView(zip64.buffer, zip64.byteOffset, zip64.byteLength)
    if (zip64.byteLength < 56 || z.getUint32(0, true) !== ZIP64_EOCD) return null
    return { size: Number(z.getBigUint64(40, true)), offset: Number(z.getBigUint64(48, true)) }
  }
  return null
}

function parseDirectory(directory: Uint8Array): string[] | null {
  const view = new DataView(directory.buffer, directory.byteOffset, directory.byteLength)
  const decoder = new TextDecoder()
  const names: string[] = []
  for (let at = 0; at + 46 <= directory.byteLength; ) {
    if (view.getUint32(at, true) !== CENTRAL_ENTRY) return names.length > 0 ? names : null
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    const name = decoder.decode(directory.subarray(at + 46, at + 46 + nameLength))
    const kept = keptEntry(name)
    if (kept) names.push(kept)
    at += 46 + nameLength + extraLength + commentLength
  }
  return names
}

/** As the pipeline's unpacking: folders, `__MACOSX/`, `._*` and escaping paths are skipped. */
function keptEntry(name: string): string | null {
  const unified = name.replaceAll('\\', '/')
  if (unified.endsWith('/')) return null
  const normalized = path.posix.normalize(unified)
  if (normalized.startsWith('/') || normalized === '..' || normalized.startsWith('../')) return null
  if (normalized.startsWith('__MACOSX/') || path.posix.basename(normalized).startsWith('._')) return null
  return normalized
}
