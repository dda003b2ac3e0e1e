// The view cube in the 3D view's corner: a CSS 3D cube turned as the camera sees the model (the
// engine gives its matrix, so three.js stays out of the screens' chunk). Clicking a face flies to
// that standard view; the corner button to the three-quarter (iso) view. The same views are buttons
// of the Camera panel and keys 1–7 of the 3D view (screens/viewer-keys.ts), so the faces are left
// out of the tab order (six more tab stops, two of them facing away, would only slow keyboard use).
import { useEffect, useRef } from 'preact/hooks'
import type { StandardView, ViewerEngine } from '../../viewer/engine.ts'

const FACES: { view: StandardView; label: string }[] = [
  { view: 'front', label: 'Front' },
  { view: 'back', label: 'Back' },
  { view: 'left', label: 'Left' },
  { view: 'right', label: 'Right' },
  { view: 'top', label: 'Top' },
  { view: 'bottom', label: 'Bottom' },
]

export function ViewCube(props: { engine: ViewerEngine | null }) {
  const body = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const engine = props.engine
    if (!engine) return
    let last = ''
    let frame = 0
    // Each frame, but the style is written only when the camera turned.
    const follow = () => {
      frame = requestAnimationFrame(follow)
      const matrix = `matrix3d(${engine
        .cubeMatrix()
        .map((n) => n.toFixed(5))
        .join(',')})`
      if (matrix === last || !body.current) return
      last = matrix
      body.current.style.transform = matrix
    }
    follow()
    return () => cancelAnimationFrame(frame)
  }, [props.engine])
  return (
    <fieldset class="view-cube" aria-label="View cube">
      <div class="view-cube-body" ref={body}>
        {FACES.map((f) => (
          <button
            key={f.view}
            type="button"
            tabIndex={-1}
            class={`view-cube-face ${f.view}`}
            aria-label={`${f.label} view`}
            data-view={f.view}
            onClick={() => props.engine?.standardView(f.view)}
          >
            {f.label}
          </button>
        ))}
      </div>
      <button
        type="button"
        tabIndex={-1}
        class="view-cube-iso"
        aria-label="Iso view"
        data-view="iso"
        onClick={() => props.engine?.standardView('iso')}
      >
        Iso
      </button>
    </fieldset>
  )
}
