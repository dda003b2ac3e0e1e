// Parts drawn in colours given by node ID (the Parts tab's "Colour by value"): each mesh under a
// coloured node wears a copy of its own material in that colour (its texture left off and a little
// of the colour given off, so that it reads as it does in the legend), the nearest coloured node
// above a mesh deciding. The copies
// go on and off through the engine's changeMaterials (the selection's lift comes off first and goes
// back on the new materials); the own materials come back when the colours are cleared, unless
// another tool has put a material of its own in place meanwhile (that one then stays).
import * as THREE from 'three'
import type { ViewerContext } from './tools/tool.ts'

type MaterialSlot = THREE.Material | THREE.Material[]

const each = (slot: MaterialSlot): THREE.Material[] => (Array.isArray(slot) ? slot : [slot])

/**
 * How much of the colour a painted part also gives off: the sides the studio lights barely reach
 * would otherwise draw a legend's blue as navy; shading still shows the part's shape.
 */
const GLOW = 0.35

function painted(material: THREE.Material, colour: THREE.Color): THREE.Material {
  const copy = material.clone()
  const lit = copy as THREE.Material & {
    color?: THREE.Color
    map?: THREE.Texture | null
    emissive?: THREE.Color
  }
  if (lit.color instanceof THREE.Color) lit.color.copy(colour)
  if (lit.emissive instanceof THREE.Color) {
    lit.emissive.copy(colour).multiplyScalar(GLOW)
    ;(copy as THREE.MeshStandardMaterial).emissiveIntensity = 1
  }
  if (lit.map) lit.map = null
  copy.userData = { ...copy.userData, partColour: true }
  return copy
}

/** The nearest node at or above `object` that has a colour. */
function colouredAbove(object: THREE.Object3D, colours: ReadonlyMap<string, string>): string | undefined {
  for (let o: THREE.Object3D | null = object; o; o = o.parent) {
    const id = o.userData.tesseraId
    if (typeof id === 'string' && colours.has(id)) return id
  }
  return undefined
}

export class PartColours {
  /** Each painted mesh: its own material(s), the copies it wears and the node whose colour they have. */
  private readonly worn = new Map<THREE.Mesh, { own: MaterialSlot; painted: MaterialSlot; node: string }>()

  private readonly context: ViewerContext

  // A plain field, not a parameter property: the Node tests run this file with types stripped.
  constructor(context: ViewerContext) {
    this.context = context
  }

  /** Colour these nodes (`#rrggbb` or any CSS colour three.js reads); null or empty: none. */
  set(colours: ReadonlyMap<string, string> | null): void {
    const next = new Map(colours ?? [])
    if (next.size === 0 && this.worn.size === 0) return
    this.context.changeMaterials(() => {
      this.clear()
      const meshes = new Set([...next.keys()].flatMap((id) => this.context.meshesOf(id)))
      for (const mesh of meshes) {
        const node = colouredAbove(mesh, next)
        if (!node) continue
        const colour = new THREE.Color(next.get(node))
        const own = mesh.material
        const copy = Array.isArray(own) ? own.map((m) => painted(m, colour)) : painted(own, colour)
        mesh.material = copy
        this.worn.set(mesh, { own, painted: copy, node })
      }
    })
  }

  /**
   * The own materials back on the meshes still wearing their copy, the copies freed, without
   * changeMaterials (the engine's end: the materials are freed with the model next).
   */
  clear(): void {
    for (const [mesh, entry] of this.worn) {
      if (mesh.material === entry.painted) {
        mesh.material = entry.own
        for (const m of each(entry.painted)) m.dispose()
      }
    }
    this.worn.clear()
  }

  /** Node ID → the colour (`#rrggbb`) drawn now on a mesh that took that node's colour. */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [mesh, entry] of this.worn) {
      if (mesh.material !== entry.painted || Object.hasOwn(out, entry.node)) continue
      const material = each(mesh.material)[0] as THREE.Material & { color?: THREE.Color }
      if (material.color instanceof THREE.Color) out[entry.node] = `#${material.color.getHexString()}`
    }
    return out
  }
}
