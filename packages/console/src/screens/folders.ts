// Folders the user created that hold no file yet. The server knows folders only as the paths of
// files (a folder exists while a file is in it; there is no "create folder" route), so an empty
// folder is kept here: in this tab's sessionStorage, per account, until the tab is closed or the
// user signs out. An upload into it makes it real on the server.
import { client, type Folder } from '../api/index.ts'

const PREFIX = 'tessera.emptyFolders:'
/** What the server accepts (packages/server/src/modules/files/names.ts). */
const NAME_MAX_BYTES = 255
const PATH_MAX = 1024
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

function storageKey(): string {
  return PREFIX + (client.session.identity?.username ?? '')
}

function remembered(): string[] {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(storageKey()) ?? '[]')
    return Array.isArray(value) ? value.filter((p): p is string => typeof p === 'string') : []
  } catch {
    return []
  }
}

/** Keeps `path` and the folders on the way to it. */
export function rememberFolder(path: string): void {
  const parts = path.split('/').filter(Boolean)
  const all = new Set(remembered())
  for (let i = 1; i <= parts.length; i++) all.add(`/${parts.slice(0, i).join('/')}`)
  try {
    sessionStorage.setItem(storageKey(), JSON.stringify([...all]))
  } catch {
    // Storage full or refused: the folder is still opened, it just is not listed after leaving it.
  }
}

/** Sign-out: the next account in this tab starts with none. */
export function forgetFolders(): void {
  sessionStorage.removeItem(storageKey())
}

/** The remembered direct sub-folders of `parent` (each listed with no files: "empty"). */
export function emptyFoldersIn(parent: string): Folder[] {
  const prefix = parent === '/' ? '/' : `${parent}/`
  return remembered()
    .filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
    .map((path) => ({ name: path.slice(prefix.length), path, fileCount: 0 }))
}

function segmentProblem(name: string): string | null {
  if (name === '') return 'Each part between “/” needs a name.'
  if (name === '.' || name === '..') return `A folder cannot be called “${name}”.`
  if (name.includes('\\')) return 'A folder name cannot contain “\\”.'
  if (FORBIDDEN.test(name)) return 'A folder name cannot contain control or direction-override characters.'
  if (new TextEncoder().encode(name).length > NAME_MAX_BYTES) return 'That folder name is too long.'
  return null
}

/**
 * Where "New folder" with `raw` in `parent` leads, or why it cannot: "a/b" makes "a" and "a/b" in
 * it (nested folders, each part checked as the server checks a path segment).
 */
export function newFolderPath(parent: string, raw: string): { path: string } | { error: string } {
  const typed = raw.normalize('NFC').trim()
  if (typed === '') return { error: 'Type a name for the folder.' }
  const parts = typed.split('/').map((p) => p.trim())
  for (const part of parts) {
    const problem = segmentProblem(part)
    if (problem) return { error: problem }
  }
  const path = `${parent === '/' ? '' : parent}/${parts.join('/')}`
  if (path.length > PATH_MAX) return { error: `The folder path would be longer than ${PATH_MAX} characters.` }
  return { path }
}
