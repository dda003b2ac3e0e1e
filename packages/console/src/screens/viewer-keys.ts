// The 3D view's keyboard: arrows turn the model as a drag in that direction would, + and − zoom,
// F fits (the selection, else the whole model), Esc clears the selection and stops placing.
// While an annotation is being placed, Esc anywhere stops it.
import { useEffect } from 'preact/hooks'
import type { ViewerEngine } from '../viewer/engine.ts'

const STEP = Math.PI / 12
const ZOOM = 1.25

export interface CanvasKeyActions {
  fit: () => void
  clear: () => void
}

export function onCanvasKey(
  event: KeyboardEvent,
  engine: ViewerEngine | null,
  actions: CanvasKeyActions,
): void {
  if (!engine || event.altKey || event.ctrlKey || event.metaKey) return
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
