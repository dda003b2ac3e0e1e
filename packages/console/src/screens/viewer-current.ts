// The viewer screen's plain helpers: where "← Files" leads, a node of the tree by id, and the view
// "Save view" stores (the screen's state put together as the saved view's slices).
import { client, type FileRecord, type SceneNode } from '../api/index.ts'
import { folderUrl } from '../router.ts'
import type { ViewerEngine } from '../viewer/engine.ts'
import type { ViewSettings } from '../viewer/state/index.ts'

/** "← Files": the folder of my own file, "Shared with me" for another account's. */
export function backTo(file: FileRecord | null): string {
  if (!file) return '/files'
  return file.owner === client.session.identity?.email ? folderUrl(file.parent) : '/shared'
}

export function findNode(tree: SceneNode[], id: string): SceneNode | null {
  for (const n of tree) {
    if (n.id === id) return n
    const inner = findNode(n.children, id)
    if (inner) return inner
  }
  return null
}

/**
 * What "Save view" stores: the tools' settings, the camera (none before the engine is up), hidden
 * and selected parts (always remembered: restoring it brings back exactly this selection, none too).
 */
export function currentView(
  engine: ViewerEngine | null,
  view: ViewSettings,
  hidden: Set<string>,
  selected: readonly string[],
): ViewSettings {
  return {
    ...view,
    camera: { ...view.camera, pose: engine?.getCamera() ?? null },
    visibility: { hidden: [...hidden] },
    selection: { nodes: [...selected], remember: true },
  }
}
