// Everything the server writes is its owner's only: files 0600, folders 0700, whatever the umask.
// Modes are set where files and folders are created (open.ts, blobs/fs.ts, keys.ts, the conversion's
// temp folder); tightenDataDir repairs a data dir made by an older version or by hand at start-up.
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

export const PRIVATE_FILE_MODE = 0o600
export const PRIVATE_DIR_MODE = 0o700

/** mkdir -p with mode 0700; the folder itself is chmod-ed too (mkdir's mode passes through the umask). */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  chmodSync(dir, PRIVATE_DIR_MODE)
}

/** chmod 0600 of the files that exist among `files`. */
export function makePrivateFiles(files: readonly string[]): void {
  for (const file of files) if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE)
}

/**
 * Takes group and other access away from the data dir and its entries one level down (the SQLite
 * files, the key, the blob folder): once the folders are 0700 nobody else can reach what is below
 * them, and walking every blob at each start would cost seconds on a large store. Answers what it
 * changed, for the caller's log line.
 */
export function tightenDataDir(dataDir: string): { path: string; from: string; to: string }[] {
  if (!existsSync(dataDir)) return []
  const changed: { path: string; from: string; to: string }[] = []
  const tighten = (target: string) => {
    const stats = statSync(target)
    const mode = stats.mode & 0o777
    if ((mode & 0o077) === 0 || !(stats.isDirectory() || stats.isFile())) return
    const wanted = stats.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE
    chmodSync(target, wanted)
    changed.push({ path: target, from: mode.toString(8), to: wanted.toString(8) })
  }
  tighten(dataDir)
  for (const entry of readdirSync(dataDir)) tighten(path.join(dataDir, entry))
  return changed
}
