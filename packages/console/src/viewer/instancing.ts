// Repeated geometry drawn instanced. A converted model keeps the GLB's sharing: the 50,000 parts of
// a plant may be 100 boxes drawn many times. Each part stays its own Mesh in the scene, so every
// tool keeps working on parts (picking, selection, layers, explode, x-ray); what changes is how
// the frame is drawn. Parts sharing a geometry and a loaded material form a batch: one
// InstancedMesh beside the model. Before each frame a part is drawn through its batch while it
// looks exactly like the batch (drawn at all, wearing its own material, not lifted by the
// selection); its own Mesh then sits the frame out (layer mask 0 for the length of the render,
// children such as outlines still drawn). Parts wearing their x-ray ghost go to a second batch of
// the pair (the ghosts of one pair are alike); a selected part (lifted, outlined) draws itself.
// The batches' materials mirror a part's own (or ghost) every frame, so what the tools set on the
// parts' materials (section planes, render mode, environment, ghost opacity) shows on them too.
import * as THREE from 'three'
import { isDrawn } from './load.ts'

/** A geometry and material drawn this many times or more are batched (a pair already saves a call). */
const MIN_REPEATS = 2

/** One InstancedMesh and the version of the part's material it last mirrored. */
interface Instances {
  readonly mesh: THREE.InstancedMesh
  /** A changed shader on the parts (their material's version) recompiles the batch's too. */
  mirrored: number
}

interface Batch {
  readonly members: THREE.Mesh[]
  /** Each member's own material (as loaded): a member wearing another one draws itself. */
  readonly own: THREE.Material[]
  /** The members wearing their own material. */
  readonly plain: Instances
  /** The members wearing their x-ray ghost (all ghosts of one pair are alike); made when first needed. */
  ghosts: Instances | null
}

/** Can be drawn as an instance: one material, no morphs or skin, not mirrored (culling would flip). */
function instanceable(object: THREE.Object3D): object is THREE.Mesh {
  if (!(object instanceof THREE.Mesh) || object instanceof THREE.InstancedMesh) return false
  if (object instanceof THREE.SkinnedMesh || Array.isArray(object.material)) return false
  if (object.userData.outline || Object.keys(object.geometry.morphAttributes).length > 0) return false
  return object.matrixWorld.determinant() > 0
}

/** Writes 16 numbers at `at`; true when they differ from what was there. */
function writeMatrix(target: THREE.TypedArray, at: number, source: readonly number[]): boolean {
  let changed = false
  const offset = at * 16
  source.forEach((value, k) => {
    if (target[offset + k] === value) return
    target[offset + k] = value
    changed = true
  })
  return changed
}

export class Instancing {
  private batches: Batch[] = []
  /** The parts drawn through a batch this frame, and their layer masks while they sit it out. */
  private readonly covered: THREE.Mesh[] = []
  private masks = new Uint32Array(0)

  /** `lifted`: the selected parts' meshes (their lifted material is not the batch's). */
  constructor(
    private readonly scene: THREE.Scene,
    private readonly lifted: () => ReadonlySet<THREE.Mesh>,
  ) {}

  /** Group the model's parts into batches (the model's world matrices must be current). */
  build(model: THREE.Object3D): void {
    const groups = new Map<string, THREE.Mesh[]>()
    model.traverse((object) => {
      if (!instanceable(object)) return
      const key = `${object.geometry.uuid} ${object.userData.sourceMaterial ?? object.id}`
      const group = groups.get(key)
      if (group) group.push(object)
      else groups.set(key, [object])
    })
    for (const members of groups.values()) if (members.length >= MIN_REPEATS) this.add(members)
  }

  private add(members: THREE.Mesh[]): void {
    const own = members.map((m) => m.material as THREE.Material)
    const [first] = members
    if (!first || !own[0]) return
    const plain = this.instances(first.geometry, own[0], members.length)
    this.batches.push({ members, own, plain, ghosts: null })
  }

  private instances(geometry: THREE.BufferGeometry, like: THREE.Material, count: number): Instances {
    const mesh = new THREE.InstancedMesh(geometry, like.clone(), count)
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage)
    // The parts move (explode); the batch's bounds would have to follow them to be culled right.
    mesh.frustumCulled = false
    mesh.count = 0
    mesh.userData.batch = true
    this.scene.add(mesh)
    return { mesh, mirrored: -1 }
  }

  /** Before the render: fill the batches from the parts, and take the covered parts out of it. */
  beforeRender(layers: THREE.Layers): void {
    const lifted = this.lifted()
    this.covered.length = 0
    for (const batch of this.batches) this.fill(batch, layers, lifted)
    if (this.masks.length < this.covered.length) this.masks = new Uint32Array(this.covered.length)
    this.covered.forEach((part, i) => {
      this.masks[i] = part.layers.mask
      part.layers.mask = 0
    })
  }

  /** After the render: the covered parts back on their layers (picking and the tools see them). */
  afterRender(): void {
    this.covered.forEach((part, i) => {
      part.layers.mask = this.masks[i] ?? part.layers.mask
    })
    this.covered.length = 0
  }

  private fill(batch: Batch, layers: THREE.Layers, lifted: ReadonlySet<THREE.Mesh>): void {
    const plain: THREE.Mesh[] = []
    const ghosts: THREE.Mesh[] = []
    for (const [i, member] of batch.members.entries()) {
      if (lifted.has(member) || !isDrawn(member, layers)) continue
      const material = member.material as THREE.Material
      if (material === batch.own[i]) plain.push(member)
      else if (material.userData.xrayGhost) ghosts.push(member)
    }
    this.place(batch.plain, plain)
    const [ghost] = ghosts
    if (ghost && !batch.ghosts)
      batch.ghosts = this.instances(ghost.geometry, ghost.material as THREE.Material, batch.members.length)
    if (batch.ghosts) this.place(batch.ghosts, ghosts)
  }

  /** The parts' world matrices into the instances (uploaded only when one changed). */
  private place(instances: Instances, parts: THREE.Mesh[]): void {
    const { mesh } = instances
    const matrices = mesh.instanceMatrix.array
    let changed = parts.length !== mesh.count
    parts.forEach((part, k) => {
      changed = writeMatrix(matrices, k, part.matrixWorld.elements) || changed
      this.covered.push(part)
    })
    if (changed) mesh.instanceMatrix.needsUpdate = true
    mesh.count = parts.length
    const [first] = parts
    if (first) this.mirror(instances, first.material as THREE.Material)
  }

  /** The batch's material made like a part's own (the tools change those, never the batch's). */
  private mirror(instances: Instances, source: THREE.Material): void {
    const target = instances.mesh.material as THREE.Material
    target.copy(source)
    // The parts' own array: a section plane dragged moves the batch's cut too.
    target.clippingPlanes = source.clippingPlanes
    if (source.version !== instances.mirrored) {
      target.needsUpdate = true
      instances.mirrored = source.version
    }
  }

  dispose(): void {
    for (const { plain, ghosts } of this.batches) {
      for (const { mesh } of ghosts ? [plain, ghosts] : [plain]) {
        mesh.removeFromParent()
        mesh.dispose()
        ;(mesh.material as THREE.Material).dispose()
      }
    }
    this.batches = []
  }
}
