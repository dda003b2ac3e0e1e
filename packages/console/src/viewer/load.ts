// Parsing the optimized GLB (meshopt, maybe Draco; decoders served by the console itself) and
// indexing its nodes by scene-tree id (`extras.tesseraId`, which GLTFLoader puts in `userData`).
import * as THREE from 'three'
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js'
import { DRACOLoader } from 'three/examples/jsm/loaders/DRACOLoader.js'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'

export interface LoadedModel {
  root: THREE.Object3D
  /** The first object of each scene-tree id. */
  nodes: Map<string, THREE.Object3D>
}

export async function parseModel(bytes: ArrayBuffer): Promise<LoadedModel> {
  const draco = new DRACOLoader().setDecoderPath('/draco/')
  const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder).setDRACOLoader(draco)
  try {
    const gltf = await loader.parseAsync(bytes, '')
    const nodes = new Map<string, THREE.Object3D>()
    gltf.scene.traverse((object) => {
      const id = object.userData.tesseraId
      if (typeof id === 'string' && !nodes.has(id)) nodes.set(id, object)
      if (object instanceof THREE.Mesh) {
        // The shared material's id, kept for the draw-call figures (probes.ts: what instancing saves).
        object.userData.sourceMaterial = Array.isArray(object.material)
          ? object.material.map((m) => m.uuid).join(',')
          : object.material.uuid
        // Own materials per mesh: highlighting one part must not light up its instances.
        object.material = Array.isArray(object.material)
          ? object.material.map((m) => m.clone())
          : object.material.clone()
      }
    })
    return { root: gltf.scene, nodes }
  } finally {
    draco.dispose()
  }
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
