// Render modes (renderMode): the model's own materials (cloned per mesh at load, viewer/load.ts)
// switched between smooth ("phong"), flat and wireframe, and "shaded-edges": smooth with the
// hard edges drawn as dark lines, as CAD viewers do. The lines are worked out once per mesh, the
// first time the mode is chosen, and kept (hidden) for the next time.
import * as THREE from 'three'
import type { RenderMode } from '../state/environment.ts'

/** Faces meeting at this angle or more make an edge: a cylinder's facets (≤ 15°) stay smooth. */
const EDGE_ANGLE = 30
/**
 * Edge lines are worked out for the model's meshes in scene order until this many triangles have
 * been taken; the rest of a larger model stays shaded without lines (EdgesGeometry costs about
 * 1 s per million triangles here and keeps up to three line vertices per triangle in memory).
 */
const EDGE_TRIANGLE_BUDGET = 2_000_000
const EDGE_COLOUR = 0x1d232b

function materialsOf(mesh: THREE.Mesh): THREE.Material[] {
  return Array.isArray(mesh.material) ? mesh.material : [mesh.material]
}

function triangles(geometry: THREE.BufferGeometry): number {
  return (geometry.index?.count ?? geometry.getAttribute('position')?.count ?? 0) / 3
}

type Shaded = THREE.Material & { flatShading?: boolean; wireframe?: boolean }

export class RenderModes {
  /**
   * Each material's shading as loaded: GLTFLoader shades a primitive without normals flat, and
   * "phong" must leave it so (it has no smooth normals to draw with).
   */
  private readonly loadedFlat = new WeakMap<THREE.Material, boolean>()
  private readonly lines = new Map<THREE.Mesh, THREE.LineSegments>()
  private readonly lineMaterial = new THREE.LineBasicMaterial({ color: EDGE_COLOUR })
  /** Meshes past the budget (or instanced): shaded without edges. */
  private skipped = 0

  /** Sets every mesh of the model to the mode. */
  apply(meshes: THREE.Mesh[], mode: RenderMode): void {
    const edges = mode === 'shaded-edges'
    if (edges) this.build(meshes)
    for (const mesh of meshes) {
      for (const m of materialsOf(mesh) as Shaded[]) {
        const flat = mode === 'flat' || this.flatAsLoaded(m)
        const wire = mode === 'wireframe'
        // flatShading changes the shader program: three compiles it again only when told.
        if ((m.flatShading ?? false) !== flat || (m.wireframe ?? false) !== wire) {
          if ('flatShading' in m) m.flatShading = flat
          if ('wireframe' in m) m.wireframe = wire
          m.needsUpdate = true
        }
        // The faces step back a little so that the lines on their edges are not half hidden.
        m.polygonOffset = edges
        m.polygonOffsetFactor = edges ? 1 : 0
        m.polygonOffsetUnits = edges ? 1 : 0
      }
      const line = this.lines.get(mesh)
      if (line) line.visible = edges
    }
  }

  private flatAsLoaded(material: Shaded): boolean {
    let flat = this.loadedFlat.get(material)
    if (flat === undefined) {
      flat = material.flatShading ?? false
      this.loadedFlat.set(material, flat)
    }
    return flat
  }

  /**
   * What the materials and lines say the mode is (the tool's snapshot); null with no meshes, or
   * when every material was flat as loaded and flat cannot be told from smooth.
   */
  read(meshes: THREE.Mesh[]): RenderMode | null {
    const materials = meshes.flatMap(materialsOf) as Shaded[]
    if (materials.some((m) => m.wireframe)) return 'wireframe'
    if ([...this.lines.values()].some((l) => l.visible)) return 'shaded-edges'
    const smooth = materials.filter((m) => !this.flatAsLoaded(m))
    if (smooth.length === 0) return null
    return smooth.some((m) => m.flatShading) ? 'flat' : 'phong'
  }

  /** Edge lines drawn now, and meshes left without (tests and the panel's note read them). */
  counts(): { lines: number; skipped: number } {
    return { lines: [...this.lines.values()].filter((l) => l.visible).length, skipped: this.skipped }
  }

  private build(meshes: THREE.Mesh[]): void {
    let budget = EDGE_TRIANGLE_BUDGET
    for (const built of this.lines.keys()) budget -= triangles(built.geometry)
    this.skipped = 0
    for (const mesh of meshes) {
      if (this.lines.has(mesh)) continue
      const count = triangles(mesh.geometry)
      // An instanced mesh draws its geometry many times: one set of lines would mark one copy.
      if (mesh instanceof THREE.InstancedMesh || count > budget) {
        this.skipped++
        continue
      }
      budget -= count
      const line = new THREE.LineSegments(
        new THREE.EdgesGeometry(mesh.geometry, EDGE_ANGLE),
        this.lineMaterial,
      )
      // Picking goes to the part, never its lines; the selection outline skips them (userData.outline).
      line.raycast = () => {}
      line.userData.outline = true
      mesh.add(line)
      this.lines.set(mesh, line)
    }
  }

  dispose(): void {
    for (const line of this.lines.values()) {
      line.removeFromParent()
      line.geometry.dispose()
    }
    this.lines.clear()
    this.lineMaterial.dispose()
  }
}
