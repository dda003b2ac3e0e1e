// Optimizations that respect node identity (glTF-Transform issue 966): a named node is never
// removed, merged or emptied, because users refer to it through the scene tree and its ID.
import {
  AnimationChannel,
  type Document,
  type Mesh,
  type Node,
  Skin,
  type Transform,
} from '@gltf-transform/core'
import { instance } from '@gltf-transform/functions'
import { viewedScene } from './scene-tree.ts'

/** Nodes outside the viewed scene would be written without an ID; drop the other scenes. */
export function keepViewedSceneOnly(): Transform {
  return function keepViewedSceneOnly(document: Document): void {
    const viewed = viewedScene(document)
    for (const scene of document.getRoot().listScenes()) if (scene !== viewed) scene.dispose()
    if (viewed) document.getRoot().setDefaultScene(viewed)
  }
}

/**
 * GPU instancing (EXT_mesh_gpu_instancing) of meshes repeated at least `min` times, restricted to
 * anonymous geometry: nodes that are unnamed and have only unnamed ancestors. glTF-Transform's
 * instance() moves every repeated mesh into one batch node at the scene root and deletes the
 * emptied nodes, which would take a named part's geometry (or the part itself) away. Here the other
 * nodes' meshes are hidden from it while it runs, then put back.
 */
export function instanceAnonymousMeshes(min: number): Transform {
  return async function instanceAnonymousMeshes(document: Document): Promise<void> {
    const scene = viewedScene(document)
    if (!scene) return
    const hidden = new Map<Node, Mesh>()
    const visit = (node: Node, insideNamed: boolean): void => {
      const named = insideNamed || node.getName() !== ''
      const mesh = node.getMesh()
      if (named && mesh) {
        hidden.set(node, mesh)
        node.setMesh(null)
      }
      for (const child of node.listChildren()) visit(child, named)
    }
    for (const root of scene.listChildren()) visit(root, false)
    try {
      await document.transform(instance({ min }))
    } finally {
      for (const [node, mesh] of hidden) node.setMesh(mesh)
    }
  }
}

/**
 * Removes unnamed nodes left holding nothing (no mesh, camera, skin, extension, children, not a
 * joint or animation target), repeatedly up the tree. Named empty nodes stay: they are markers or
 * groups a user may refer to.
 */
export function pruneAnonymousLeaves(): Transform {
  return function pruneAnonymousLeaves(document: Document): void {
    const candidates = document.getRoot().listNodes()
    for (let node = candidates.pop(); node; node = candidates.pop()) {
      if (!isAnonymousLeaf(node)) continue
      const parent = node.getParentNode()
      node.dispose()
      if (parent) candidates.push(parent)
    }
  }
}

function isAnonymousLeaf(node: Node): boolean {
  if (node.isDisposed() || node.getName() !== '') return false
  if (node.listChildren().length > 0 || node.getMesh() || node.getCamera() || node.getSkin()) return false
  if (node.listExtensions().length > 0) return false
  return !node.listParents().some((parent) => parent instanceof Skin || parent instanceof AnimationChannel)
}
