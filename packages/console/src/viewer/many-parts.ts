// Models of many parts, loaded in two steps. GLTFLoader builds a scene in one piece: for 50,000
// parts about 0.7 s of it is one stretch of promises that nothing can interrupt, and the first frame
// waits for all of it. This GLTFLoader plugin takes over at `beforeRoot` for a model of
// MANY_PARTS nodes or more whose nodes are plain (no skins, animations, morph weights, cameras or
// node extensions; one scene):
//
// 1. it reserves the scene's and nodes' names in GLTFLoader's order (so they come out the same),
// 2. loads each distinct mesh once through the parser (whose cache keeps the decoded geometry and
//    materials: nothing is decoded twice, and the GPU buffers and shader programs carry over),
// 3. hands the engine a preview (preview.ts) and waits until it is drawn (when it takes at most
//    PREVIEW_MAX_CALLS draw calls: parts that share meshes),
// 4. builds the scene itself, node by node as GLTFLoader would, in slices of SLICE_MS that give the
//    browser its turn between them (the preview on screen meanwhile, and the page responsive),
// 5. and leaves GLTFLoader no scene to build: the load resolves with an empty one, replaced by ours.
import * as THREE from 'three'
import type { GLTFLoaderPlugin, GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js'
import {
  type GltfJson,
  instancesOf,
  type NodeDef,
  placements,
  preorder,
  previewCalls,
  setLocalTransform,
} from './preview.ts'

/** From this many nodes on, a model is previewed and built in slices (below, GLTFLoader's own ~50 ms). */
export const MANY_PARTS = 2_000
/**
 * A preview of more draw calls than this is not drawn (its parts mostly have meshes of their own: it
 * would cost what the model costs); the parts are still built in slices.
 */
export const PREVIEW_MAX_CALLS = 1_000
/** The longest the build holds the main thread at a time. */
const SLICE_MS = 12

function eligible(json: GltfJson): boolean {
  const nodes = json.nodes ?? []
  if (nodes.length < MANY_PARTS || json.scenes?.length !== 1) return false
  if ((json.skins?.length ?? 0) > 0 || (json.animations?.length ?? 0) > 0) return false
  const plain = (node: NodeDef) =>
    node.skin === undefined && node.weights === undefined && node.camera === undefined && !node.extensions
  return nodes.every(plain)
}

/**
 * The browser's turn: a plain task, behind whatever else waits (timers, network, the page's own
 * work). scheduler.yield() would put the build ahead of those, and starve them until it ends.
 */
function giveWay(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

function assignExtras(object: THREE.Object3D, extras: unknown): void {
  if (typeof extras === 'object' && extras !== null) Object.assign(object.userData, extras)
}

interface Names {
  scene: string
  nodes: Map<number, string>
}

function reserveNames(parser: GLTFParser, json: GltfJson): Names {
  const sceneDef = json.scenes?.[json.scene ?? 0]
  const scene = sceneDef?.name ? parser.createUniqueName(sceneDef.name) : ''
  const nodes = new Map<number, string>()
  for (const { index, node } of preorder(json))
    if (node.name) nodes.set(index, parser.createUniqueName(node.name))
  return { scene, nodes }
}

/**
 * Each mesh's object for the nodes that use it, as GLTFLoader hands them out: a mesh used by one
 * node is its own object, a shared one is cloned per node and named `<name>_instance_<n>`.
 */
class MeshUses {
  private readonly refs = new Map<number, number>()
  private readonly uses = new Map<number, number>()
  private readonly templates: Map<number, THREE.Object3D>

  constructor(json: GltfJson, templates: Map<number, THREE.Object3D>) {
    this.templates = templates
    for (const node of json.nodes ?? [])
      if (node.mesh !== undefined) this.refs.set(node.mesh, (this.refs.get(node.mesh) ?? 0) + 1)
  }

  /** The object of one node: its mesh's (with its own materials, by `own`) or an empty one. */
  objectOf(node: NodeDef, own: (mesh: THREE.Mesh) => void): THREE.Object3D {
    const template = node.mesh === undefined ? undefined : this.templates.get(node.mesh)
    if (node.mesh === undefined || !template) return new THREE.Object3D()
    let object = template
    if ((this.refs.get(node.mesh) ?? 0) > 1) {
      const use = this.uses.get(node.mesh) ?? 0
      this.uses.set(node.mesh, use + 1)
      object = template.clone()
      object.name += `_instance_${use}`
    }
    object.traverse((o) => {
      if (o instanceof THREE.Mesh) own(o)
    })
    return object
  }
}

async function buildScene(
  json: GltfJson,
  names: Names,
  meshes: MeshUses,
  own: (mesh: THREE.Mesh) => void,
  signal: AbortSignal | undefined,
): Promise<THREE.Group> {
  const scene = new THREE.Group()
  scene.name = names.scene
  assignExtras(scene, json.scenes?.[json.scene ?? 0]?.extras)
  const built = new Map<number, THREE.Object3D>()
  let slice = performance.now()
  for (const { index, node, parent } of preorder(json)) {
    const object = meshes.objectOf(node, own)
    if (node.name) {
      object.userData.name = node.name
      object.name = names.nodes.get(index) ?? ''
    }
    assignExtras(object, node.extras)
    setLocalTransform(node, object)
    ;(parent === null ? scene : (built.get(parent) ?? scene)).add(object)
    built.set(index, object)
    if (performance.now() - slice > SLICE_MS) {
      await giveWay()
      // The viewer was closed meanwhile: the rest is not built.
      signal?.throwIfAborted()
      slice = performance.now()
    }
  }
  scene.updateMatrixWorld()
  return scene
}

/**
 * The plugin and what it built. `show` draws the preview and resolves once it is on screen; `own`
 * gives a part its own materials (load.ts), done here as each part is made; `signal` stops the
 * build (the load then fails with its reason).
 */
export class ManyParts {
  /** The scene built here, or null when the model was left to GLTFLoader. */
  root: THREE.Group | null = null

  private readonly show: (preview: THREE.Group) => Promise<void>
  private readonly own: (mesh: THREE.Mesh) => void
  private readonly signal: AbortSignal | undefined

  constructor(
    show: (preview: THREE.Group) => Promise<void>,
    own: (mesh: THREE.Mesh) => void,
    signal?: AbortSignal,
  ) {
    this.show = show
    this.own = own
    this.signal = signal
  }

  readonly plugin = (parser: GLTFParser): GLTFLoaderPlugin => ({
    name: 'tessera_many_parts',
    beforeRoot: () => this.load(parser),
  })

  private async load(parser: GLTFParser): Promise<void> {
    const json = parser.json as GltfJson
    if (!eligible(json)) return
    const names = reserveNames(parser, json)
    const where = placements(json)
    const templates = new Map<number, THREE.Object3D>()
    await Promise.all(
      [...where.keys()].map(async (mesh) => {
        templates.set(mesh, (await parser.getDependency('mesh', mesh)) as THREE.Object3D)
      }),
    )
    if (previewCalls(json, where.keys()) <= PREVIEW_MAX_CALLS) {
      const preview = new THREE.Group()
      for (const [mesh, places] of where) {
        const template = templates.get(mesh)
        if (template) for (const batch of instancesOf(template, places)) preview.add(batch)
      }
      await this.show(preview)
      this.signal?.throwIfAborted()
    }
    this.root = await buildScene(json, names, new MeshUses(json, templates), this.own, this.signal)
    // Nothing left for GLTFLoader to build: its scene comes out empty (and is dropped).
    json.scenes = (json.scenes ?? []).map(() => ({}))
  }
}
