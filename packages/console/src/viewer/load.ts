// Parsing the optimized GLB (meshopt, maybe Draco; decoders served by the console itself) and
// indexing its nodes by scene-tree id (`extras.tesseraId`, which GLTFLoader puts in `userData`).
import * as THREE from 'three'
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js'
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import type { Bounds } from './camera.ts'
import { ManyParts } from './many-parts.ts'

export interface LoadedModel {
  root: THREE.Object3D
  /** The first object of each scene-tree id. */
  nodes: Map<string, THREE.Object3D>
}

/**
 * A part's own materials (clones of the shared ones): highlighting one part must not light up its
 * instances. The shared material's id is kept for the draw-call figures (probes.ts).
 */
function ownMaterials(mesh: THREE.Mesh): void {
  mesh.userData.sourceMaterial = Array.isArray(mesh.material)
    ? mesh.material.map((m) => m.uuid).join(',')
    : mesh.material.uuid
  mesh.material = Array.isArray(mesh.material) ? mesh.material.map((m) => m.clone()) : mesh.material.clone()
}

/**
 * The model's scene and its nodes by id. Given `preview`, a model of many parts is drawn first as a
 * preview and built in slices (many-parts.ts); `preview` resolves once that preview is on screen,
 * and `signal` stops that build.
 */
export async function parseModel(
  bytes: ArrayBuffer,
  preview?: (group: THREE.Group) => Promise<void>,
  signal?: AbortSignal,
): Promise<LoadedModel> {
  const draco = new DRACOLoader().setDecoderPath('/draco/')
  const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder).setDRACOLoader(draco)
  const manyParts = preview ? new ManyParts(preview, ownMaterials, signal) : null
  if (manyParts) loader.register(manyParts.plugin)
  try {
    const gltf = await loader.parseAsync(bytes, '')
    const root = manyParts?.root ?? gltf.scene
    const nodes = new Map<string, THREE.Object3D>()
    root.traverse((object) => {
      const id = object.userData.tesseraId
      if (typeof id === 'string' && !nodes.has(id)) nodes.set(id, object)
      if (object instanceof THREE.Mesh && object.userData.sourceMaterial === undefined) ownMaterials(object)
    })
    return { root, nodes }
  } finally {
    draco.dispose()
  }
}

/** The bounding sphere around what an object holds (at least a millimetre across). */
export function boundsOf(object: THREE.Object3D): Bounds {
  const sphere = new THREE.Box3().setFromObject(object).getBoundingSphere(new THREE.Sphere())
  return { center: sphere.center, radius: Math.max(sphere.radius, 1e-3) }
}

/** A ray from the camera through a point of the canvas (client coordinates). */
export function rayThrough(
  canvas: HTMLCanvasElement,
  camera: THREE.Camera,
  clientX: number,
  clientY: number,
): THREE.Raycaster {
  const rect = canvas.getBoundingClientRect()
  const ndc = new THREE.Vector2(
    ((clientX - rect.left) / rect.width) * 2 - 1,
    -((clientY - rect.top) / rect.height) * 2 + 1,
  )
  const ray = new THREE.Raycaster()
  ray.setFromCamera(ndc, camera)
  return ray
}

/** The layers a camera draws when none is given: three.js's default, layer 0. */
const DEFAULT_LAYERS = new THREE.Layers()

/**
 * Drawn by a camera with these layers: visible up to the root (hidden parts) and on one of the
 * camera's layers (the layers tool moves a switched-off part out of layer 0). three.js tests the
 * layers of the drawn object itself only, not its parents'. Picking, box select, Fit and the section
 * caps all ask this one question.
 */
export function isDrawn(object: THREE.Object3D, layers: THREE.Layers = DEFAULT_LAYERS): boolean {
  if (!object.layers.test(layers)) return false
  for (let o: THREE.Object3D | null = object; o; o = o.parent) if (!o.visible) return false
  return true
}

/** Cut away by its material's clipping planes (section planes): the raycaster does not know them. */
export function clippedAway(hit: THREE.Intersection): boolean {
  const { material } = hit.object as THREE.Mesh
  const m = Array.isArray(material) ? material[hit.face?.materialIndex ?? 0] : material
  const planes = m?.clippingPlanes
  if (!m || !planes?.length) return false
  const outside = (p: THREE.Plane) => p.distanceToPoint(hit.point) < 0
  return m.clipIntersection ? planes.every(outside) : planes.some(outside)
}

/** Whether any of a mesh's materials is cut by clipping planes (its nearest hit may be cut away). */
export function isClipped(mesh: THREE.Mesh): boolean {
  const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material]
  return materials.some((m) => (m.clippingPlanes?.length ?? 0) > 0)
}

/** The meshes under a root (none for null), the selection outlines left out. */
export function meshesUnder(root: THREE.Object3D | null): THREE.Mesh[] {
  const out: THREE.Mesh[] = []
  root?.traverse((o) => {
    if (o instanceof THREE.Mesh && !o.userData.outline) out.push(o)
  })
  return out
}

/** The geometries and materials of every mesh under `root` freed (the engine's end). */
export function disposeMeshes(root: THREE.Object3D): void {
  root.traverse((o) => {
    if (!(o instanceof THREE.Mesh)) return
    o.geometry.dispose()
    for (const m of Array.isArray(o.material) ? o.material : [o.material]) m.dispose()
  })
}
