// Caps on the cut faces of closed meshes, with the stencil buffer (the technique of three.js's
// webgl_clipping_stencil example). For each cutting plane: every model mesh is drawn again into the
// stencil only, cut by that one plane, back faces adding one and front faces taking one away, with
// no depth test; where the plane passes inside a closed solid the count is not zero. A quad on the
// plane (cut by the other planes) is then drawn where the count is not zero, and resets it.
// An open mesh (a single wall face, a surface) has no inside: its count can be wrong, so a cap may
// be missing or a stray patch may show where its surfaces overlap (docs/console.md).
import * as THREE from 'three'
import type { Bounds } from '../camera.ts'
import { isDrawn } from '../load.ts'

/**
 * The stencil pass draws each mesh twice per cut: past this many draws in all the caps are left out
 * and the cut stays open (2,000 meshes under one plane, 333 under a box and no plane).
 */
const CAP_DRAW_BUDGET = 4000
/** The caps are drawn after the model and its outlines (highlight.ts uses 18 and 20). */
const ORDER = 100

export interface Cut {
  plane: THREE.Plane
  color: string
}

function stencilMaterial(plane: THREE.Plane, side: THREE.Side, op: THREE.StencilOp): THREE.Material {
  return new THREE.MeshBasicMaterial({
    side,
    clippingPlanes: [plane],
    depthWrite: false,
    depthTest: false,
    colorWrite: false,
    stencilWrite: true,
    stencilFunc: THREE.AlwaysStencilFunc,
    stencilFail: op,
    stencilZFail: op,
    stencilZPass: op,
  })
}

/** A copy of a model mesh for the stencil pass: its geometry, placed where its source is drawn. */
function copyOf(source: THREE.Mesh, material: THREE.Material, order: number): THREE.Mesh {
  const copy =
    source instanceof THREE.InstancedMesh
      ? Object.assign(new THREE.InstancedMesh(source.geometry, material, source.count), {
          instanceMatrix: source.instanceMatrix,
        })
      : new THREE.Mesh(source.geometry, material)
  copy.matrixAutoUpdate = false
  copy.matrixWorldAutoUpdate = false
  copy.frustumCulled = false
  copy.renderOrder = order
  // After the scene's matrices are updated for this frame (an exploded part has moved).
  copy.onBeforeRender = () => copy.matrixWorld.copy(source.matrixWorld)
  return copy
}

export class SectionCaps {
  readonly group = new THREE.Group()
  private pairs: { source: THREE.Mesh; copy: THREE.Mesh }[] = []
  private readonly owned: { dispose(): void }[] = []
  /** The camera's layers: a copy is drawn only while its source is drawn on them. */
  private layers = new THREE.Layers()
  /** Caps drawn now: one per cut (0 when the model has too many meshes). */
  count = 0

  constructor(private readonly renderer: THREE.WebGLRenderer) {
    this.group.name = 'section caps'
  }

  /**
   * Build the stencil copies and caps for these cuts of these meshes. `bounds` is asked at each
   * frame: the caps cover the model's bounds as they are then (explode grows them).
   */
  build(cuts: Cut[], meshes: THREE.Mesh[], bounds: () => Bounds, layers: THREE.Layers): void {
    this.clear()
    this.layers = layers
    if (meshes.length === 0 || meshes.length * cuts.length * 2 > CAP_DRAW_BUDGET) return
    const quad = new THREE.PlaneGeometry(1, 1)
    this.owned.push(quad)
    cuts.forEach((cut, i) => {
      const order = ORDER + i * 2
      const back = stencilMaterial(cut.plane, THREE.BackSide, THREE.IncrementWrapStencilOp)
      const front = stencilMaterial(cut.plane, THREE.FrontSide, THREE.DecrementWrapStencilOp)
      this.owned.push(back, front)
      for (const source of meshes) {
        for (const material of [back, front]) {
          const copy = copyOf(source, material, order)
          this.pairs.push({ source, copy })
          this.group.add(copy)
        }
      }
      this.group.add(this.cap(cut, cuts, quad, bounds, order + 1))
    })
    this.count = cuts.length
    this.sync()
  }

  private cap(cut: Cut, cuts: Cut[], quad: THREE.PlaneGeometry, bounds: () => Bounds, order: number) {
    const material = new THREE.MeshBasicMaterial({
      color: cut.color,
      side: THREE.DoubleSide,
      clippingPlanes: cuts.filter((c) => c !== cut).map((c) => c.plane),
      stencilWrite: true,
      stencilRef: 0,
      stencilFunc: THREE.NotEqualStencilFunc,
      stencilFail: THREE.ReplaceStencilOp,
      stencilZFail: THREE.ReplaceStencilOp,
      stencilZPass: THREE.ReplaceStencilOp,
      // A face lying in the plane (a plane made from a face) is drawn over its cap, not fighting it.
      polygonOffset: true,
      polygonOffsetFactor: 1,
      polygonOffsetUnits: 1,
    })
    this.owned.push(material)
    const mesh = new THREE.Mesh(quad, material)
    mesh.name = 'section cap'
    mesh.renderOrder = order
    mesh.frustumCulled = false
    mesh.userData.capOf = cut.plane
    mesh.onBeforeRender = () => {
      // Follows the plane as it is dragged: centred on the model's centre projected onto it, as wide
      // as the model's bounds now (exploded parts are farther out).
      const { center, radius } = bounds()
      cut.plane.projectPoint(center, mesh.position)
      mesh.scale.setScalar(radius * 2)
      mesh.lookAt(mesh.position.clone().sub(cut.plane.normal))
      mesh.updateMatrixWorld()
    }
    // The next cut counts from zero again.
    mesh.onAfterRender = () => this.renderer.clearStencil()
    return mesh
  }

  /** Copies shown only while their source is drawn (hidden, isolated, layer switched off). */
  sync(): void {
    for (const { source, copy } of this.pairs) {
      copy.visible = isDrawn(source, this.layers)
      if (copy instanceof THREE.InstancedMesh && source instanceof THREE.InstancedMesh)
        copy.count = source.count
    }
  }

  /** The cap colour of each cut, in order (read back from the cap materials). */
  colors(): string[] {
    return this.group.children
      .filter((o): o is THREE.Mesh => o instanceof THREE.Mesh && o.name === 'section cap')
      .map((o) => `#${(o.material as THREE.MeshBasicMaterial).color.getHexString()}`)
  }

  clear(): void {
    this.group.clear()
    this.pairs = []
    for (const o of this.owned.splice(0)) o.dispose()
    this.count = 0
  }
}
