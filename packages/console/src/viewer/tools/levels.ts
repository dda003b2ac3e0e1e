// The tree level the exploded view moves and the top-level groups of the layers: the first level of
// the model's tree that branches. From the root down, a node with a single child holding geometry is
// only a wrapper (glTF's scene node, IFC's project › site › building): the level is the first one
// with two or more children holding geometry (IFC: the storeys; an assembly: its parts).
import * as THREE from 'three'

function holdsGeometry(object: THREE.Object3D): boolean {
  let found = false
  object.traverse((o) => {
    if (o instanceof THREE.Mesh && !o.userData.outline) found = true
  })
  return found
}

export function firstBranchingLevel(root: THREE.Object3D | null): THREE.Object3D[] {
  let node = root
  while (node) {
    const children = node.children.filter(holdsGeometry)
    if (children.length !== 1) return children
    node = children[0] ?? null
  }
  return []
}

/**
 * The name a user knows an object by: the glTF node's own name (GLTFLoader keeps it in
 * `userData.name`; `name` has spaces turned to underscores), else its scene-tree id.
 */
export function nameOf(object: THREE.Object3D): string {
  const own = object.userData.name
  return typeof own === 'string' && own
    ? own
    : object.name || String(object.userData.tesseraId ?? object.uuid)
}
