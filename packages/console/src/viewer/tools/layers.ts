// Layers: groups of parts shown or hidden together. What a layer is depends on the model:
// - IFC (nodes carry `ifcType` in their extras, docs/conversion.md): each IfcBuildingStorey is a
//   `storey` layer (every part under it), each IFC class of the elements (IfcWall, IfcDoor, ...) a
//   `class` layer (the parts whose nearest element above them, or themselves, is of that class);
// - every other format: the top-level groups (`group`: the first level of the tree that branches,
//   levels.ts) and the materials (`material`: by the material's name).
// A part is drawn when no layer it belongs to is off, and not hidden by the per-part visibility
// (the two combine: a part hidden either way is not drawn). Off-layer meshes are taken out of the
// camera's three.js layer 0 rather than made invisible, so the per-part `visible` flags the core
// sets stay untouched; the raycaster (layer 0 too) then skips them as well.
import * as THREE from 'three'
import type { LayerKind, LayerRef, LayersSettings } from '../state/layers.ts'
import { firstBranchingLevel, nameOf } from './levels.ts'
import type { ViewerContext, ViewerTool } from './tool.ts'

export interface Layer extends LayerRef {
  /** How many parts (meshes) it holds. */
  parts: number
}

/** The three.js layer off-layer meshes are moved to: no camera or raycaster looks at it. */
const OFF = 31
/** IFC's spatial structure: containers, not classes of parts. */
const SPATIAL = new Set(['IFCPROJECT', 'IFCSITE', 'IFCBUILDING', 'IFCBUILDINGSTOREY', 'IFCSPACE'])

function ifcType(object: THREE.Object3D): string | null {
  const type = object.userData.ifcType
  return typeof type === 'string' ? type.toUpperCase() : null
}

/** IfcWall from IFCWALL: the schema's spelling is not in the file, the usual prefix is restored. */
function className(type: string): string {
  return `Ifc${type.slice(3, 4)}${type.slice(4).toLowerCase()}`
}

function meshesUnder(object: THREE.Object3D): THREE.Mesh[] {
  const out: THREE.Mesh[] = []
  object.traverse((o) => {
    if (o instanceof THREE.Mesh && !o.userData.outline) out.push(o)
  })
  return out
}

function isIfc(root: THREE.Object3D): boolean {
  let found = false
  root.traverse((o) => {
    if (ifcType(o)) found = true
  })
  return found
}

type Members = Map<string, { ref: LayerRef; meshes: Set<THREE.Mesh> }>

function add(members: Members, kind: LayerKind, name: string, meshes: THREE.Mesh[]): void {
  const key = `${kind}\u0000${name}`
  const entry = members.get(key) ?? { ref: { kind, name }, meshes: new Set<THREE.Mesh>() }
  for (const m of meshes) entry.meshes.add(m)
  members.set(key, entry)
}

function ifcLayers(root: THREE.Object3D, members: Members): void {
  root.traverse((o) => {
    const type = ifcType(o)
    if (type === 'IFCBUILDINGSTOREY') add(members, 'storey', nameOf(o), meshesUnder(o))
    if (!(o instanceof THREE.Mesh) || o.userData.outline) return
    for (let p: THREE.Object3D | null = o; p; p = p.parent) {
      const t = ifcType(p)
      if (t && !SPATIAL.has(t)) {
        add(members, 'class', className(t), [o])
        return
      }
    }
  })
}

function meshLayers(root: THREE.Object3D, members: Members): void {
  for (const group of firstBranchingLevel(root)) add(members, 'group', nameOf(group), meshesUnder(group))
  for (const mesh of meshesUnder(root)) {
    const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material]
    for (const m of materials) add(members, 'material', m.name || 'Unnamed material', [mesh])
  }
}

type ChildEvent = THREE.Object3DEventMap['childadded'] & THREE.Object3DEventMap['childremoved']

export class LayersTool implements ViewerTool<LayersSettings> {
  private state: LayersSettings = { enabled: false, off: [] }
  private members: Members = new Map()
  /** Meshes taken out of layer 0, with their layer mask before. */
  private readonly taken = new Map<THREE.Mesh, number>()
  /** Objects under those meshes (outlines) taken out with them, with their mask before. */
  private readonly takenBelow = new Map<THREE.Object3D, number>()

  // A plain field, not a parameter property: node's type stripping (test/layers-tool.test.ts) has none.
  private readonly context: ViewerContext

  constructor(context: ViewerContext) {
    this.context = context
  }

  modelLoaded(): void {
    const root = this.context.model()
    for (const mesh of this.taken.keys()) this.release(mesh)
    for (const object of this.takenBelow.keys()) this.release(object)
    this.members = new Map()
    if (root) (isIfc(root) ? ifcLayers : meshLayers)(root, this.members)
    this.taken.clear()
    this.takenBelow.clear()
    this.draw()
  }

  /** The model's layers, storeys and groups first, then classes and materials, by name. */
  list(): Layer[] {
    const order: LayerKind[] = ['storey', 'group', 'class', 'material']
    return [...this.members.values()]
      .map(({ ref, meshes }) => ({ ...ref, parts: meshes.size }))
      .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || a.name.localeCompare(b.name))
  }

  apply(state: LayersSettings): void {
    this.state = { enabled: state.enabled, off: state.off.map((l) => ({ ...l })) }
    this.draw()
  }

  private draw(): void {
    const off = new Set<THREE.Mesh>()
    if (this.state.enabled) {
      const offKeys = new Set(this.state.off.map((l) => `${l.kind}\u0000${l.name}`))
      for (const [key, { meshes }] of this.members) if (offKeys.has(key)) for (const m of meshes) off.add(m)
    }
    for (const [mesh, mask] of this.taken) {
      if (off.has(mesh)) continue
      mesh.layers.mask = mask
      this.taken.delete(mesh)
      this.release(mesh)
      for (const child of mesh.children) this.giveBack(child)
    }
    for (const mesh of off) {
      if (this.taken.has(mesh)) continue
      this.taken.set(mesh, mesh.layers.mask)
      mesh.layers.set(OFF)
      this.watch(mesh)
      for (const child of mesh.children) this.takeOut(child)
    }
    this.context.invalidate()
  }

  /*
   * What is added under an off mesh later (the selection's outline is a child of its mesh) leaves
   * layer 0 too: layers, unlike `visible`, are not inherited. three.js tells each parent when a
   * child is added or removed, so this costs nothing per frame (walking every off mesh's subtree
   * on every frame did: milliseconds a frame with thousands of parts off), and what is removed is
   * forgotten at once rather than kept (and its mask restored, should it be added back elsewhere).
   */
  private readonly onChildAdded = (event: ChildEvent): void => {
    this.takeOut(event.child)
    this.context.invalidate()
  }

  private readonly onChildRemoved = (event: ChildEvent): void => {
    this.giveBack(event.child)
  }

  private watch(object: THREE.Object3D): void {
    object.addEventListener('childadded', this.onChildAdded)
    object.addEventListener('childremoved', this.onChildRemoved)
  }

  private release(object: THREE.Object3D): void {
    object.removeEventListener('childadded', this.onChildAdded)
    object.removeEventListener('childremoved', this.onChildRemoved)
  }

  private takeOut(object: THREE.Object3D): void {
    object.traverse((o) => {
      if (this.takenBelow.has(o)) return
      this.takenBelow.set(o, o.layers.mask)
      o.layers.set(OFF)
      this.watch(o)
    })
  }

  private giveBack(object: THREE.Object3D): void {
    object.traverse((o) => {
      const mask = this.takenBelow.get(o)
      if (mask === undefined) return
      o.layers.mask = mask
      this.takenBelow.delete(o)
      this.release(o)
    })
  }

  /** The layers off, as applied; a layer of this model counts only when its parts are really out. */
  snapshot(): LayersSettings {
    const drawnOff = (ref: LayerRef): boolean => {
      const entry = this.members.get(`${ref.kind}\u0000${ref.name}`)
      return !entry || !this.state.enabled || [...entry.meshes].every((m) => this.taken.has(m))
    }
    return { enabled: this.state.enabled, off: this.state.off.filter(drawnOff).map((l) => ({ ...l })) }
  }

  dispose(): void {
    this.state = { enabled: false, off: [] }
    this.draw()
  }
}
