// Names of files and directories: what an upload may be called and where it may go.
import { AppError } from '../../platform/errors.ts'

/** Longest file name, in UTF-8 bytes (what common filesystems allow for one path segment). */
const NAME_MAX_BYTES = 255
/** Longest directory path, in characters. */
const DIRECTORY_MAX_LENGTH = 1024

// C0 and C1 control characters and DEL, and the bidirectional overrides and isolates that make a
// name display differently from what it is ("evil\u202Egpj.exe").
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** Why a path segment is refused, or null when it is acceptable. */
function segmentProblem(segment: string): string | null {
  if (segment === '.' || segment === '..') return 'must not be "." or ".."'
  if (segment.includes('/') || segment.includes('\\')) return 'must not contain "/" or "\\"'
  if (FORBIDDEN_CHARACTERS.test(segment))
    return 'must not contain control or bidirectional-override characters'
  if (Buffer.byteLength(segment, 'utf8') > NAME_MAX_BYTES) return `must be at most ${NAME_MAX_BYTES} bytes`
  return null
}

/** Could `name` be a stored file name (a listing cursor names one)? */
export function isFileName(name: string): boolean {
  return segmentProblem(name) === null && name.trim() === name
}

/**
 * The name an upload is stored under: Unicode NFC, surrounding white space trimmed. Names that
 * would escape their directory, hide characters or are too long are refused (400), not rewritten,
 * so the stored name is always the one the client asked for.
 */
export function sanitizeFileName(raw: string | undefined): string {
  const name = (raw ?? '').normalize('NFC').trim()
  if (name === '') throw new AppError('VALIDATION_FAILED', 'The file part needs a file name.')
  const problem = segmentProblem(name)
  if (problem) throw new AppError('VALIDATION_FAILED', `The file name ${problem}.`)
  return name
}

/** `a/b/` or `/a/b` → `/a/b`; the root is `/`. Segments follow the file name rules. */
export function normalizeDirectory(raw: string): string {
  const segments = raw
    .normalize('NFC')
    .split('/')
    .filter((s) => s !== '')
  for (const segment of segments) {
    const problem = segmentProblem(segment)
    if (problem || segment.trim() !== segment) {
      throw new AppError('VALIDATION_FAILED', 'The directory path is not valid.')
    }
  }
  const directory = `/${segments.join('/')}`
  if (directory.length > DIRECTORY_MAX_LENGTH) {
    throw new AppError('VALIDATION_FAILED', `The directory path is longer than ${DIRECTORY_MAX_LENGTH}.`)
  }
  return directory
}

export function fileKey(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`
}
