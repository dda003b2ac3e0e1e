// The selection highlight: the part keeps its own colour (a red wall stays red) and gets an
// outline of its edges in the accent colour, drawn twice: solid where the edge is in front, faint
// where other parts hide it, so a selected part can be found inside an assembly. Its surfaces get
// a slight lift of their own colour as emissive (lighter, same hue).
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
  private readonly solid = new LineMaterial({ color: OUTLINE, linewidth: OUTLINE_PX })
  private readonly faint = new LineMaterial({
    color: OUTLINE,
    linewidth: OUTLINE_PX - 1,
    transparent: true,
    opacity: 0.35,
    depthTest: false,
  })
  private readonly saved = new Map<THREE.Material, Saved>()
  private outlines: LineSegments2[] = []

  /** LineMaterial draws in pixels: it needs the drawing buffer's size. */
  setResolution(width: number, height: number): void {
    this.solid.resolution.set(width, height)
    this.faint.resolution.set(width, height)
  }

  show(meshes: THREE.Mesh[]): void {
    this.clear()
    let budget = EDGE_TRIANGLE_BUDGET
    for (const mesh of meshes) {
      for (const m of materialsOf(mesh)) this.lift(m)
      // An instanced mesh draws its geometry many times: one outline would mark only one copy.
      if (mesh instanceof THREE.InstancedMesh) continue
      budget -= triangles(mesh.geometry)
      if (budget < 0) continue
      this.outline(mesh)
    }
  }

  clear(): void {
    for (const [m, s] of this.saved) {
      const lit = m as THREE.MeshStandardMaterial
      lit.emissive.copy(s.emissive)
      lit.emissiveIntensity = s.intensity
    }
    this.saved.clear()
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
    this.saved.set(material, { emissive: lit.emissive.clone(), intensity: lit.emissiveIntensity ?? 1 })
    lit.emissive.copy(lit.color).multiplyScalar(LIFT)
    lit.emissiveIntensity = 1
  }

  /** The mesh's hard edges (30° apart), as two children of the mesh: they follow it and its visibility. */
  private outline(mesh: THREE.Mesh): void {
    const edges = new THREE.EdgesGeometry(mesh.geometry, 30)
    const geometry = new LineSegmentsGeometry().fromEdgesGeometry(edges)
    edges.dispose()
    for (const [material, order] of [
      [this.faint, 20],
      [this.solid, 21],
    ] as const) {
      const line = new LineSegments2(geometry, material)
      line.renderOrder = order
      // Picking goes to the part under the pointer, never to its outline.
      line.raycast = () => {}
      mesh.add(line)
      this.outlines.push(line)
    }
  }
}
