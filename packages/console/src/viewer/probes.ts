// What tests and the browser benchmark (bench/viewer.ts) read from the page, on the canvas: every
// tool's state (`tesseraSnapshot()`, with the parts hidden and coloured; `tesseraApply()`), a pick timed inside the page
// (performance.now() around the engine's own pick, BVH or the plain three.js raycast), the bounds
// trees' build (and what it would cost in the main thread), and the draw-call figures.
import * as THREE from 'three'
import { MeshBVH } from 'three-mesh-bvh'
import { meshesUnder } from './load.ts'
import { firstShownHit, nodeIdOf, type PickIndex } from './picking.ts'
import type { ViewSettings } from './state/index.ts'
import type { ViewerContext } from './tools/tool.ts'

interface TimedPick {
  nodeId: string | null
  /** From the camera to the hit point (null without a hit): both ways of picking must agree. */
  distance: number | null
  ms: number
}

interface DrawStats {
  /** Meshes in the model. */
  meshes: number
  /** Draw calls of the last frame (renderer.info). */
  calls: number
  /** Distinct geometry + source material pairs: the draw calls if repeats were instanced. */
  batches: number
  triangles: number
}

function drawStats(context: ViewerContext): DrawStats {
  const pairs = new Set<string>()
  let meshes = 0
  context.model()?.traverse((o) => {
    if (!(o instanceof THREE.Mesh)) return
    meshes++
    const source = (o.userData.sourceMaterial as string | undefined) ?? 'own'
    pairs.add(`${o.geometry.uuid} ${source}`)
  })
  const { calls, triangles } = context.renderer.info.render
  return { meshes, calls, batches: pairs.size, triangles }
}

/**
 * What the build in the worker saves: the biggest geometry's tree built here, in the main thread,
 * timed (ms; 0 without a model). Indirect, as the worker builds it: the index is left as it is.
 */
function timeTreeInThread(context: ViewerContext): number {
  let biggest: THREE.BufferGeometry | undefined
  const size = (g: THREE.BufferGeometry) => g.index?.count ?? g.getAttribute('position').count
  context.model()?.traverse((o) => {
    if (o instanceof THREE.Mesh && (!biggest || size(o.geometry) > size(biggest))) biggest = o.geometry
  })
  if (!biggest) return 0
  const start = performance.now()
  new MeshBVH(biggest, { indirect: true })
  return performance.now() - start
}

/** The engine's own state, read back and applied (every tool's slice: view-state tests). */
interface EngineState {
  snapshot(): Record<string, unknown>
  apply(view: Partial<ViewSettings>): void
  /** The parts coloured by value (part-colours.ts). */
  selection: { colours: { snapshot(): Record<string, string> } }
}

/**
 * The engine's snapshot, plus what no saved view holds: the nodes hidden now (setHidden) and
 * coloured now (node → colour drawn).
 */
function fullSnapshot(context: ViewerContext, engine: EngineState): Record<string, unknown> {
  const hidden = [...context.nodes()].filter(([, o]) => !o.visible).map(([id]) => id)
  return { ...engine.snapshot(), visibility: { hidden }, colours: engine.selection.colours.snapshot() }
}

export function exposeProbes(
  canvas: HTMLCanvasElement,
  context: ViewerContext,
  index: PickIndex,
  engine: EngineState,
): void {
  const tesseraPick = (clientX: number, clientY: number, accelerated = true): TimedPick => {
    const model = context.model()
    const start = performance.now()
    const ray = context.rayAt(clientX, clientY)
    const hit = !model ? undefined : accelerated ? index.hit(ray, model) : firstShownHit(ray, model, false)
    const ms = performance.now() - start
    return { nodeId: hit ? nodeIdOf(hit.object) : null, distance: hit?.distance ?? null, ms }
  }
  Object.assign(canvas, {
    tesseraSnapshot: () => fullSnapshot(context, engine),
    tesseraApply: (view: Partial<ViewSettings>) => engine.apply(view),
    // Each material's id and its number of clipping planes (section tests).
    tesseraMaterials: () =>
      meshesUnder(context.model()).flatMap((m) =>
        [m.material].flat().map((x) => [x.uuid, x.clippingPlanes?.length ?? 0]),
      ),
    tesseraPick,
    tesseraPickIndex: async () => {
      await index.whenBuilt()
      return index.progress()
    },
    tesseraDrawStats: () => drawStats(context),
    tesseraTimeTreeInThread: () => timeTreeInThread(context),
  })
}
