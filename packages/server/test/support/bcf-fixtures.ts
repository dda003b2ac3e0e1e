// The BCF import fixtures (test/fixtures/bcf/v21 and v30, see the README there) are plain directory
// trees; tests zip them at run time with fflate, so no binary archive is committed. Nested objects
// make fflate write a directory entry per folder, as the BCF encoding guide asks.
import { readdirSync, readFileSync } from 'node:fs'
import { strToU8, unzipSync, type Zippable, zipSync } from 'fflate'

const FIXTURES = new URL('../fixtures/bcf/', import.meta.url)

function readTree(url: URL): Zippable {
  const tree: Zippable = {}
  for (const entry of readdirSync(url, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.isDirectory()) tree[entry.name] = readTree(new URL(`${entry.name}/`, url))
    else tree[entry.name] = new Uint8Array(readFileSync(new URL(entry.name, url)))
  }
  return tree
}

/** Zips `files` (archive path -> text or bytes), with a directory entry for each folder. */
export function zipFiles(files: Record<string, string | Uint8Array>): Uint8Array {
  const tree: Zippable = {}
  for (const [path, content] of Object.entries(files)) {
    const parts = path.split('/')
    const name = parts.pop() ?? path
    let folder = tree
    for (const part of parts) {
      const next = folder[part]
      const sub: Zippable =
        next !== undefined && !(next instanceof Uint8Array) && !Array.isArray(next) ? next : {}
      folder[part] = sub
      folder = sub
    }
    folder[name] = typeof content === 'string' ? strToU8(content) : content
  }
  return zipSync(tree)
}

/** The fixture `name` ('v21' or 'v30') as a .bcf (zip) archive. */
export function bcfFixtureZip(name: 'v21' | 'v30'): Uint8Array {
  return zipSync(readTree(new URL(`${name}/`, FIXTURES)))
}

/** A zip's entries as the BCF checkers take them: path -> bytes, directory entries included. */
export function zipEntries(zip: Uint8Array): Map<string, Uint8Array> {
  return new Map(Object.entries(unzipSync(zip)))
}
