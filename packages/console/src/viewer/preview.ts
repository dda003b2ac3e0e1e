// The first frame of a model of many parts, before its objects are built: each distinct mesh once,
// drawn where its nodes put it, one InstancedMesh per mesh primitive (a draw call each, however
// many parts share it). The engine draws it and swaps in the model when built.
import * as THREE from 'three'

export interface NodeDef {
  name?: string
  children?: number[]
  mesh?: number
  camera?: number
  matrix?: number[]
  translation?: number[]
  rotation?: number[]
  scale?: number[]
  skin?: number
  weights?: number[]
  extras?: unknown
  extensions?: unknown
}

export interface GltfJson {
  nodes?: NodeDef[]
  meshes?: { primitives?: unknown[] }[]
  scenes?: { name?: string; nodes?: number[]; extras?: unknown; extensions?: unknown }[]
  scene?: number
  skins?: unknown[]
  animations?: unknown[]
}

/** A node's own transform, as GLTFLoader reads it: `matrix`, or translation, rotation and scale. */
export function setLocalTransform(node: NodeDef, object: THREE.Object3D): void {
  if (node.matrix) {
    object.applyMatrix4(new THREE.Matrix4().fromArray(node.matrix))
    return
  }
  if (node.translation) object.position.fromArray(node.translation)
  if (node.rotation) object.quaternion.fromArray(node.rotation)
  if (node.scale) object.scale.fromArray(node.scale)
}

/** The default scene's root nodes, as GLTFLoader picks the scene. */
function sceneRoots(json: GltfJson): number[] {
  return json.scenes?.[json.scene ?? 0]?.nodes ?? []
}

/** The default scene's nodes in GLTFLoader's order (depth first, children in order), each once. */
export function* preorder(
  json: GltfJson,
): Generator<{ index: number; node: NodeDef; parent: number | null }> {
  const nodes = json.nodes ?? []
  const seen = new Set<number>()
  const stack: { index: number; parent: number | null }[] = sceneRoots(json)
    .map((index) => ({ index, parent: null }))
    .reverse()
  for (let item = stack.pop(); item; item = stack.pop()) {
    const node = nodes[item.index]
    // glTF forbids a node with two parents (and so cycles): it is placed once, where first met.
    if (!node || seen.has(item.index)) continue
    seen.add(item.index)
    yield { index: item.index, node, parent: item.parent }
    const children = node.children ?? []
    for (let i = children.length - 1; i >= 0; i--)
      stack.push({ index: children[i] ?? -1, parent: item.index })
  }
}

/** The world matrices of each mesh's nodes in the default scene, meshes in order of first use. */
export function placements(json: GltfJson): Map<number, THREE.Matrix4[]> {
  const out = new Map<number, THREE.Matrix4[]>()
  const worlds = new Map<number, THREE.Matrix4>()
  const probe = new THREE.Object3D()
  for (const { index, node, parent } of preorder(json)) {
    probe.position.set(0, 0, 0)
    probe.quaternion.identity()
    probe.scale.set(1, 1, 1)
    setLocalTransform(node, probe)
    probe.updateMatrix()
    const above = parent === null ? undefined : worlds.get(parent)
    const world = above ? above.clone().multiply(probe.matrix) : probe.matrix.clone()
    worlds.set(index, world)
    if (node.mesh !== undefined) {
      const list = out.get(node.mesh) ?? []
      list.push(world)
      out.set(node.mesh, list)
    }
  }
  return out
}

/**
 * The draw calls a preview would take: one per primitive of each mesh drawn. A model whose parts
 * mostly have meshes of their own gains nothing from it (as many calls as the model itself).
 */
export function previewCalls(json: GltfJson, meshes: Iterable<number>): number {
  let calls = 0
  for (const mesh of meshes) calls += json.meshes?.[mesh]?.primitives?.length ?? 1
  return calls
}

/** One InstancedMesh per triangle primitive of a loaded glTF mesh, at its nodes' places. */
export function instancesOf(loaded: THREE.Object3D, places: THREE.Matrix4[]): THREE.InstancedMesh[] {
  const out: THREE.InstancedMesh[] = []
  loaded.traverse((object) => {
    if (!(object instanceof THREE.Mesh) || object instanceof THREE.SkinnedMesh) return
    if (Object.keys(object.geometry.morphAttributes).length > 0) return
    const batch = new THREE.InstancedMesh(object.geometry, object.material, places.length)
    places.forEach((matrix, i) => {
      batch.setMatrixAt(i, matrix)
    })
    batch.computeBoundingBox()
    batch.computeBoundingSphere()
    out.push(batch)
  })
  return out
}

/** The preview's own objects freed (its geometries and materials belong to the model). */
export function disposePreview(preview: THREE.Group): void {
  preview.removeFromParent()
  for (const batch of preview.children) if (batch instanceof THREE.InstancedMesh) batch.dispose()
}
