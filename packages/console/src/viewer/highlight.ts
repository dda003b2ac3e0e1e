// The selection highlight: the part keeps its own colour (a red wall stays red) and gets an
// outline of its edges in the accent colour, drawn twice: solid where the edge is in front, faint
// where other parts hide it, so a selected part can be found inside an assembly. Its surfaces get
// a slight lift of their own colour added to their emissive (lighter, same hue).
import * as THREE from 'three'
import { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js'
import { LineSegments2 } from 'three/examples/jsm/lines/LineSegments2.js'
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js'

const OUTLINE = 0x1f6feb
const OUTLINE_PX = 3
const LIFT = 0.25
/** Edges are worked out per selected mesh; past this many triangles only the lift shows. */
const EDGE_TRIANGLE_BUDGET = 400_000

interface Saved {
  emissive: THREE.Color
  intensity: number
}

function materialsOf(mesh: THREE.Mesh): THREE.Material[] {
  return Array.isArray(mesh.material) ? mesh.material : [mesh.material]
}

function triangles(geometry: THREE.BufferGeometry): number {
  return (geometry.index?.count ?? geometry.getAttribute('position')?.count ?? 0) / 3
}

export class SelectionHighlight {
  private readonly solid: LineMaterial
  private readonly faint: LineMaterial
  private readonly saved = new Map<THREE.Material, Saved>()
  private outlines: LineSegments2[] = []
  private readonly order: number

  /**
   * My own selection: the accent outline and the lift. Another participant's (live sessions): their
   * colour and no lift, so that several selections of one part stay apart and mine stays mine.
   */
  constructor(
    color: THREE.ColorRepresentation = OUTLINE,
    private readonly lifts = true,
  ) {
    // Another's outline is wider and drawn first: where we both selected a part, theirs shows as a
    // band of their colour around my accent line instead of hiding it.
    const px = lifts ? OUTLINE_PX : OUTLINE_PX + 3
    this.order = lifts ? 20 : 18
    this.solid = new LineMaterial({ color, linewidth: px })
    this.faint = new LineMaterial({
      color,
      linewidth: px - 1,
      transparent: true,
      opacity: 0.35,
      depthTest: false,
    })
  }

  /** LineMaterial draws in pixels: it needs the drawing buffer's size. */
  setResolution(width: number, height: number): void {
    this.solid.resolution.set(width, height)
    this.faint.resolution.set(width, height)
  }

  show(meshes: THREE.Mesh[]): void {
    this.clear()
    let budget = EDGE_TRIANGLE_BUDGET
    for (const mesh of meshes) {
      if (this.lifts) for (const m of materialsOf(mesh)) this.lift(m)
      // An instanced mesh draws its geometry many times: one outline would mark only one copy.
      if (mesh instanceof THREE.InstancedMesh) continue
      budget -= triangles(mesh.geometry)
      if (budget < 0) continue
      this.outline(mesh)
    }
  }

  /** The lift taken off every material it is on (their own emissive back), outlines kept. */
  unlift(): void {
    for (const [m, s] of this.saved) {
      const lit = m as THREE.MeshStandardMaterial
      lit.emissive.copy(s.emissive)
      lit.emissiveIntensity = s.intensity
    }
    this.saved.clear()
  }

  /** The lift put on the materials these meshes have now (after another tool swapped them). */
  relift(meshes: THREE.Mesh[]): void {
    if (this.lifts) for (const mesh of meshes) for (const m of materialsOf(mesh)) this.lift(m)
  }

  clear(): void {
    this.unlift()
    for (const line of this.outlines) {
      line.removeFromParent()
      line.geometry.dispose()
    }
    this.outlines = []
  }

  dispose(): void {
    this.clear()
    this.solid.dispose()
    this.faint.dispose()
  }

  private lift(material: THREE.Material): void {
    const lit = material as Partial<THREE.MeshStandardMaterial>
    if (!(lit.emissive instanceof THREE.Color) || !(lit.color instanceof THREE.Color)) return
    if (this.saved.has(material)) return
    const intensity = lit.emissiveIntensity ?? 1
    this.saved.set(material, { emissive: lit.emissive.clone(), intensity })
    // Added to the part's own glow (none for most parts; a part coloured by value has some).
    lit.emissive.multiplyScalar(intensity).add(lit.color.clone().multiplyScalar(LIFT))
    lit.emissiveIntensity = 1
  }

  /** The mesh's hard edges (30° apart), as two children of the mesh: they follow it and its visibility. */
  private outline(mesh: THREE.Mesh): void {
    const edges = new THREE.EdgesGeometry(mesh.geometry, 30)
    const geometry = new LineSegmentsGeometry().fromEdgesGeometry(edges)
    edges.dispose()
    for (const [material, order] of [
      [this.faint, this.order],
      [this.solid, this.order + 1],
    ] as const) {
      const line = new LineSegments2(geometry, material)
      line.renderOrder = order
      // Picking goes to the part under the pointer, never to its outline; and an outline is no part
      // of the mesh to outline again (a LineSegments2 is a Mesh).
      line.raycast = () => {}
      line.userData.outline = true
      mesh.add(line)
      this.outlines.push(line)
    }
  }
}

export interface PeerSelection {
  id: string
  color: string
  ids: string[]
}

/** The selections of the others in a live session, each outlined in its participant's colour. */
export class PeerSelections {
  private readonly shown = new Map<string, { color: string; ids: string[]; highlight: SelectionHighlight }>()
  private resolution: [number, number] = [1, 1]

  setResolution(width: number, height: number): void {
    this.resolution = [width, height]
    for (const peer of this.shown.values()) peer.highlight.setResolution(width, height)
  }

  /** `meshesOf` gives a node's meshes (none for an ID the model does not have). */
  set(peers: PeerSelection[], meshesOf: (id: string) => THREE.Mesh[]): void {
    const keep = new Set(peers.map((p) => p.id))
    for (const [id, peer] of this.shown) {
      if (keep.has(id)) continue
      peer.highlight.dispose()
      this.shown.delete(id)
    }
    for (const peer of peers) {
      let entry = this.shown.get(peer.id)
      if (entry && entry.color === peer.color && entry.ids.join() === peer.ids.join()) continue
      entry?.highlight.dispose()
      entry = { color: peer.color, ids: peer.ids, highlight: new SelectionHighlight(peer.color, false) }
      entry.highlight.setResolution(...this.resolution)
      entry.highlight.show(peer.ids.flatMap(meshesOf))
      this.shown.set(peer.id, entry)
    }
  }

  /** Participant → the node IDs outlined for them (tests read it through the viewer's data attributes). */
  state(): Record<string, string[]> {
    return Object.fromEntries([...this.shown].map(([id, p]) => [id, p.ids]))
  }

  dispose(): void {
    for (const peer of this.shown.values()) peer.highlight.dispose()
    this.shown.clear()
  }
}
