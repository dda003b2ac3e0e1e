// The 3D view's keyboard: arrows turn the model as a drag in that direction would, + and − zoom,
// F fits (the selection, else the whole model), Esc clears the selection and stops placing,
// 1–7 fly to the standard views (tools/camera.tsx), O switches perspective and orthographic, and
// each toolbar entry's key (tools/index.ts: C for Camera) opens or closes its panel (opened so, the
// panel takes focus: viewer-toolbar.tsx). A key a tool took first is left alone: while a measure is
// placed, the arrows move its cursor and Enter places a point (viewer/tools/measure-keys.ts).
// While an annotation is being placed, Esc anywhere stops it.
import { useEffect } from 'preact/hooks'
import type { ViewerEngine } from '../viewer/engine.ts'
import type { ViewSettings } from '../viewer/state/index.ts'
import { STANDARD_VIEWS } from './tools/camera.tsx'
import { TOOL_PANELS } from './tools/index.ts'

const STEP = Math.PI / 12
const ZOOM = 1.25

export interface CanvasKeyActions {
  fit: () => void
  clear: () => void
  /** Perspective ↔ orthographic (the screen keeps its view state in step). */
  projection: () => void
  /** Open the tool's panel, or close it when it is open. */
  tool: (slice: keyof ViewSettings) => void
}

export function onCanvasKey(
  event: KeyboardEvent,
  engine: ViewerEngine | null,
  actions: CanvasKeyActions,
): void {
  if (!engine || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return
  const zoomIn = () => engine.zoom(1 / ZOOM)
  const zoomOut = () => engine.zoom(ZOOM)
  const keys: Record<string, () => void> = {
    ArrowLeft: () => engine.orbit(-STEP, 0),
    ArrowRight: () => engine.orbit(STEP, 0),
    ArrowUp: () => engine.orbit(0, -STEP),
    ArrowDown: () => engine.orbit(0, STEP),
    '+': zoomIn,
    '=': zoomIn,
    '-': zoomOut,
    _: zoomOut,
    f: actions.fit,
    F: actions.fit,
    Escape: actions.clear,
    o: actions.projection,
    O: actions.projection,
  }
  for (const v of STANDARD_VIEWS) keys[v.key] = () => engine.standardView(v.view)
  for (const t of TOOL_PANELS) {
    keys[t.key.toLowerCase()] = () => actions.tool(t.slice)
    keys[t.key.toUpperCase()] = () => actions.tool(t.slice)
  }
  const action = keys[event.key]
  if (!action) return
  // Arrows would scroll the page, + and − are the view's here.
  event.preventDefault()
  action()
}

export function useEscapeStopsPlacing(placing: boolean, stop: () => void): void {
  useEffect(() => {
    if (!placing) return
    const listener = (e: KeyboardEvent) => {
      if (e.key === 'Escape') stop()
    }
    document.addEventListener('keydown', listener)
    return () => document.removeEventListener('keydown', listener)
  }, [placing])
}
