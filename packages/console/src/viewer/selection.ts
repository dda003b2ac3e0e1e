// The engine's selection: a set of scene-tree ids, outlined together (highlight.ts), read back for
// snapshot(), and chosen by click (Ctrl/Cmd toggles, Shift adds) or by a box (box-select.ts). Beside
// it, the parts coloured by value (part-colours.ts, `selection.colours`): both mark parts on their
// materials, and the selection's lift goes on top of a part's colour.
import type * as THREE from 'three'
import { BoxSelect } from './box-select.ts'
import { SelectionHighlight } from './highlight.ts'
import { PartColours } from './part-colours.ts'
import type { ViewerContext } from './tools/tool.ts'

/** What a click does to the selection: replace it, toggle the part (Ctrl/Cmd), or add it (Shift). */
export type SelectMode = 'only' | 'toggle' | 'add'

function selectModeOf(event: { ctrlKey: boolean; metaKey: boolean; shiftKey: boolean }): SelectMode {
  if (event.ctrlKey || event.metaKey) return 'toggle'
  return event.shiftKey ? 'add' : 'only'
}

/** The selection after a click on `id` (null: on nothing) in `mode`. */
export function nextSelection(current: readonly string[], id: string | null, mode: SelectMode): string[] {
  if (mode === 'only') return id ? [id] : []
  if (!id) return [...current]
  if (!current.includes(id)) return [...current, id]
  return mode === 'toggle' ? current.filter((x) => x !== id) : [...current]
}

/** What fit() frames: the given nodes (those the model has), or the whole model when none are given. */
export function fitRoots(
  ids: string | readonly string[] | null | undefined,
  nodes: ReadonlyMap<string, THREE.Object3D>,
  model: THREE.Object3D | null,
): THREE.Object3D[] {
  const list = typeof ids === 'string' ? [ids] : (ids ?? [])
  if (list.length > 0) return list.flatMap((id) => nodes.get(id) ?? [])
  return model ? [model] : []
}

export interface SelectionSnapshot {
  /** The ids outlined now, in the order they were selected (ids the model lacks are left out). */
  nodes: string[]
}

export class EngineSelection {
  private readonly highlight = new SelectionHighlight()
  private current: string[] = []
  private currentMeshes: ReadonlySet<THREE.Mesh> = new Set()
  readonly box: BoxSelect
  /** Parts drawn in colours of their own: `colours.set(map)` (node ID → `#rrggbb`; null: none). */
  readonly colours: PartColours
  /** The keys of the last click on the canvas: what the engine's pick (onPick) does to the selection. */
  clickMode: SelectMode = 'only'

  constructor(private readonly context: ViewerContext) {
    this.box = new BoxSelect(context)
    this.colours = new PartColours(context)
    // Capture: read before the engine's own pointerup reports the pick.
    context.canvas.addEventListener('pointerup', this.keys, { capture: true })
  }

  private keys = (event: PointerEvent): void => {
    this.clickMode = selectModeOf(event)
  }

  /** Select exactly these ids (repeats and unknown ids are ignored). */
  set(ids: Iterable<string>): void {
    this.current = [...new Set(ids)].filter((id) => this.context.node(id) !== undefined)
    this.currentMeshes = new Set(this.meshes())
    this.highlight.show([...this.currentMeshes])
    // New outlines under the model: the section cuts them too.
    this.context.sceneChanged()
  }

  /** The selected meshes, each once (a part and its parent both selected outline it once). */
  private meshes(): THREE.Mesh[] {
    return [...new Set(this.current.flatMap((id) => this.context.meshesOf(id)))]
  }

  /**
   * Run a swap of materials (x-ray) with the lift taken off, so that copies are made of the parts'
   * own materials, then lift the materials the selected parts have after it; `done` follows.
   */
  reapplyAround(swap: () => void, done: () => void): void {
    this.highlight.unlift()
    try {
      swap()
    } finally {
      this.highlight.relift(this.meshes())
      done()
    }
  }

  /** The selected meshes as a set (instancing.ts: a lifted part draws itself, not through a batch). */
  meshSet(): ReadonlySet<THREE.Mesh> {
    return this.currentMeshes
  }

  ids(): string[] {
    return [...this.current]
  }

  /** The objects to frame: the selected parts, or null when nothing is selected. */
  objects(): THREE.Object3D[] | null {
    const out = this.current.flatMap((id) => this.context.node(id) ?? [])
    return out.length > 0 ? out : null
  }

  snapshot(): SelectionSnapshot {
    return { nodes: this.ids() }
  }

  setResolution(width: number, height: number): void {
    this.highlight.setResolution(width, height)
  }

  dispose(): void {
    this.context.canvas.removeEventListener('pointerup', this.keys, { capture: true })
    this.box.dispose()
    this.colours.clear()
    this.highlight.dispose()
  }
}
