// Scene trees as JSON text, kept per process. A tree changes only when a conversion stores a new
// one (replaceSceneTree), and that transaction always stores a new optimized asset under a key
// never used before (conversion/service.ts storeConversion: `optimized/<new ID>.glb`). So the
// asset key the caller just read with the file row names the tree exactly: a kept text under the
// same key is the tree in the database, and GET /file/:id/scene-tree answers it without reading
// the nodes again (no second query, on PostgreSQL no second round trip). Bounded by bytes: a 50 k-node
// tree is megabytes of text.
import type { Executor } from '../../platform/db/index.ts'
import { readSceneTree } from './service.ts'

const MAX_BYTES = 64 * 1024 * 1024
/** Bigger texts are answered, never kept: one tree must not push out all others. */
const MAX_KEPT_TEXT = MAX_BYTES / 8

interface Kept {
  assetKey: string
  text: string
}

const kept = new Map<string, Kept>()
let keptBytes = 0

function forget(fileId: string): void {
  const entry = kept.get(fileId)
  if (!entry) return
  kept.delete(fileId)
  keptBytes -= entry.text.length
}

/**
 * The file's scene tree (its root nodes) as JSON text. `assetKey` is the file's optimized asset
 * key as read with the file row: the tree stored with that asset.
 */
export async function sceneTreeJson(db: Executor, fileId: string, assetKey: string): Promise<string> {
  const entry = kept.get(fileId)
  if (entry?.assetKey === assetKey) return entry.text
  const text = JSON.stringify(await readSceneTree(db, fileId))
  forget(fileId)
  if (text.length <= MAX_KEPT_TEXT) {
    // Oldest first in the map's order: drop them until the new text fits.
    for (const oldest of kept.keys()) {
      if (keptBytes + text.length <= MAX_BYTES) break
      forget(oldest)
    }
    kept.set(fileId, { assetKey, text })
    keptBytes += text.length
  }
  return text
}
