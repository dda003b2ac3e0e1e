// Reading a .bcfzip within the bounds of limits.ts, and writing one.
import { unzipSync, type Zippable, zipSync } from 'fflate'
import { AppError } from '../../platform/errors.ts'
import {
  BCF_MAX_ENTRIES,
  BCF_MAX_IMAGE_BYTES,
  BCF_MAX_UNZIPPED_BYTES,
  BCF_MAX_XML_BYTES,
  BCF_MAX_XML_TOTAL_BYTES,
} from './limits.ts'

const IMAGE = /\.(png|jpe?g)$/i
const XML = /\.(bcf|bcfv|bcfp|version|xml)$/i

function invalid(message: string): AppError {
  return new AppError('BCF_INVALID', message)
}

/**
 * The entries a BCF reader uses (XML files and snapshots; others are skipped unread), by path. Throws
 * BCF_INVALID when the body is not a zip, or past a bound.
 */
export function readZip(body: Uint8Array): Map<string, Uint8Array> {
  let count = 0
  let total = 0
  let xml = 0
  const check = (file: { name: string; originalSize: number }) => {
    count += 1
    if (count > BCF_MAX_ENTRIES) throw invalid(`The zip holds more than ${BCF_MAX_ENTRIES} entries.`)
    if (file.name.endsWith('/')) return false
    const image = IMAGE.test(file.name)
    if (!image && !XML.test(file.name)) return false
    const max = image ? BCF_MAX_IMAGE_BYTES : BCF_MAX_XML_BYTES
    if (file.originalSize > max) {
      throw invalid(`${file.name} declares ${file.originalSize} bytes; at most ${max} are read.`)
    }
    total += file.originalSize
    if (!image) xml += file.originalSize
    if (xml > BCF_MAX_XML_TOTAL_BYTES) {
      throw invalid(`The zip's XML files declare more than ${BCF_MAX_XML_TOTAL_BYTES} bytes.`)
    }
    if (total > BCF_MAX_UNZIPPED_BYTES) {
      throw invalid(`The zip's files declare more than ${BCF_MAX_UNZIPPED_BYTES} bytes.`)
    }
    return true
  }
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(body, { filter: check })
  } catch (error) {
    if (error instanceof AppError) throw error
    throw invalid(`The body is not a readable zip (${(error as Error).message}).`)
  }
  return new Map(Object.entries(files).map(([name, bytes]) => [name.replaceAll('\\', '/'), bytes]))
}

/**
 * A zip of `files` (path → bytes), each folder with its own entry first (BCF's encoding guide asks
 * for them); images stored as they are, XML deflated. Dated once, so the same content makes the same
 * bytes (the export's ETag).
 */
export function writeZip(files: Map<string, Uint8Array>): Uint8Array {
  const zippable: Zippable = {}
  const mtime = new Date('2026-01-01T00:00:00Z')
  for (const [name, bytes] of files) {
    const slash = name.lastIndexOf('/')
    const folder = slash > 0 ? name.slice(0, slash + 1) : undefined
    if (folder && !(folder in zippable)) zippable[folder] = [new Uint8Array(0), { level: 0, mtime }]
    zippable[name] = [bytes, { level: IMAGE.test(name) ? 0 : 6, mtime }]
  }
  return zipSync(zippable)
}
