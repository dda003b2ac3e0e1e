// X-ray: every part but the kept ones drawn as a ghost, so that the kept ones show through the rest.
// A ghost is a copy of the mesh's own material: transparent with the chosen opacity, no depth write
// (ghosts never hide what is behind them, kept parts included), its colour washed towards grey. The
// original material is put back when the effect ends, unless another tool has replaced the ghost
// meanwhile (its material then stays).
import * as THREE from 'three'
import { type XraySettings, xraySlice } from '../state/xray.ts'
import type { ViewerContext, ViewerTool } from './tool.ts'

/** How much of a ghost's colour is washed out to its own grey (0: none, 1: all grey). */
const WASH = 0.6

type MaterialSlot = THREE.Material | THREE.Material[]

function ghostOf(material: THREE.Material, opacity: number): THREE.Material {
  const ghost = material.clone()
  ghost.transparent = true
  ghost.opacity = opacity
  ghost.depthWrite = false
  ghost.userData = { ...ghost.userData, xrayGhost: true }
  const colour = (ghost as THREE.Material & { color?: THREE.Color }).color
  if (colour instanceof THREE.Color) {
    const grey = colour.r * 0.3 + colour.g * 0.59 + colour.b * 0.11
    colour.lerp(new THREE.Color(grey, grey, grey), WASH)
  }
  return ghost
}

function each(slot: MaterialSlot): THREE.Material[] {
  return Array.isArray(slot) ? slot : [slot]
}

export class XrayTool implements ViewerTool<XraySettings> {
  private state: XraySettings = xraySlice.defaults()
  /** Ghosted meshes: their own material(s) and the ghost(s) put in their place. */
  private readonly ghosted = new Map<THREE.Mesh, { own: MaterialSlot; ghost: MaterialSlot }>()

  constructor(private readonly context: ViewerContext) {}

  modelLoaded(): void {
    // The meshes of the model before are gone with their ghosts.
    this.ghosted.clear()
    this.draw()
  }

  apply(state: XraySettings): void {
    this.state = { ...state, keep: [...state.keep], others: [...state.others] }
    this.draw()
  }

  /** Own materials back on these meshes (all ghosted ones for none given), ghosts disposed. */
  private unghost(meshes: Iterable<THREE.Mesh> = [...this.ghosted.keys()]): void {
    for (const mesh of meshes) {
      const entry = this.ghosted.get(mesh)
      if (!entry) continue
      if (mesh.material === entry.ghost) mesh.material = entry.own
      for (const m of each(entry.ghost)) m.dispose()
      this.ghosted.delete(mesh)
    }
  }

  private clear(): void {
    if (this.ghosted.size > 0) this.context.changeMaterials(() => this.unghost())
  }

  /**
   * Only what changed: a new opacity is set on the ghosts there are (no new materials, no shader
   * compiled again while the slider moves); a mesh is ghosted or given back its own material only
   * when whether it is kept changed. The selection's lift is off while materials are swapped, so a
   * ghost is a copy of the part's own material (ViewerContext.changeMaterials).
   */
  private draw(): void {
    const on = this.state.enabled && this.context.model() !== null
    const kept = new Set(on ? this.state.keep.flatMap((id) => this.context.meshesOf(id)) : [])
    const wanted = on ? this.context.meshesOf(null).filter((mesh) => !kept.has(mesh)) : []
    const wantedSet = new Set(wanted)
    const leaving = [...this.ghosted.keys()].filter((mesh) => !wantedSet.has(mesh))
    const coming = wanted.filter((mesh) => !this.ghosted.has(mesh))
    if (leaving.length > 0 || coming.length > 0) {
      this.context.changeMaterials(() => {
        for (const mesh of coming) {
          const own = mesh.material
          const ghost = Array.isArray(own)
            ? own.map((m) => ghostOf(m, this.state.opacity))
            : ghostOf(own, this.state.opacity)
          mesh.material = ghost
          this.ghosted.set(mesh, { own, ghost })
        }
        this.unghost(leaving)
      })
    }
    for (const { ghost } of this.ghosted.values()) for (const m of each(ghost)) m.opacity = this.state.opacity
    this.context.invalidate()
  }

  /** The opacity read back from a ghost drawn now (the stored one when nothing is ghosted). */
  snapshot(): XraySettings {
    const first = [...this.ghosted.values()][0]
    const opacity = first ? (each(first.ghost)[0]?.opacity ?? this.state.opacity) : this.state.opacity
    return { ...this.state, keep: [...this.state.keep], others: [...this.state.others], opacity }
  }

  dispose(): void {
    this.clear()
  }
}
