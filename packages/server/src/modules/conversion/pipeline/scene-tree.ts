// Scene tree and stable node IDs (docs/conversion.md, "Node IDs").
//
// Walking the final document's default scene, a node's ID is the first 16 hex characters of
// sha256(parentId + "\0" + name + "\0" + k): parentId is "" for a root, name is the node's name
// ("" when unnamed), k is the number of earlier siblings with the same name. The ID depends only on
// the node's path of names from the root, so the same input always gets the same IDs, and a node's
// ID does not move when unrelated parts of the scene change. Each ID is also written into the node's
// extras as `tesseraId`, so a viewer loading the GLB can map its nodes to tree entries.
import { createHash } from 'node:crypto'
import type { Document, Node, Scene } from '@gltf-transform/core'
import type { TreeNode } from './types.ts'

const NODE_ID_EXTRAS_KEY = 'tesseraId'

function nodeId(parentId: string, name: string, sameNameIndex: number): string {
  return createHash('sha256')
    .update(`${parentId}\u0000${name}\u0000${sameNameIndex}`)
    .digest('hex')
    .slice(0, 16)
}

/** The scene viewers show: the default one, else the first. */
export function viewedScene(document: Document): Scene | undefined {
  const root = document.getRoot()
  return root.getDefaultScene() ?? root.listScenes()[0]
}

/** Computes the tree of the viewed scene and stamps every node in it with its ID. */
export function buildSceneTree(document: Document): TreeNode[] {
  const scene = viewedScene(document)
  return scene ? treeOf(scene.listChildren(), '') : []
}

function treeOf(nodes: Node[], parentId: string): TreeNode[] {
  const sameNameCounts = new Map<string, number>()
  return nodes.map((node) => {
    const name = node.getName()
    const k = sameNameCounts.get(name) ?? 0
    sameNameCounts.set(name, k + 1)
    const id = nodeId(parentId, name, k)
    // extras may be any JSON value in a source file; only an object can carry the ID beside it.
    const extras: unknown = node.getExtras()
    const kept = typeof extras === 'object' && extras !== null && !Array.isArray(extras) ? extras : {}
    node.setExtras({ ...kept, [NODE_ID_EXTRAS_KEY]: id })
    return { id, name, children: treeOf(node.listChildren(), id) }
  })
}

/** Counts the nodes of a tree, descendants included. */
export function countTreeNodes(tree: readonly TreeNode[]): number {
  return tree.reduce((sum, node) => sum + 1 + countTreeNodes(node.children), 0)
}
