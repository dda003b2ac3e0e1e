// The measure panel: the placing modes (Distance, Angle), a status line saying which point comes
// next, show/hide all dimensions, and the list of dimensions, each with its value, a button framing
// it in view and one deleting it. Closing the panel leaves the placing mode. Choosing a mode puts the
// focus in the 3D view, where the arrows move the keyboard's cursor and Enter places a point
// (viewer/tools/measure-keys.ts); the status line says what each point snapped to.
import { useEffect, useRef, useState } from 'preact/hooks'
import { MAX_QUOTATIONS, type Quotation, type QuotationType } from '../../viewer/state/measure.ts'
import type { Vec3 } from '../../viewer/state/slice.ts'
import { measureControl } from '../../viewer/tools/measure-control.ts'
import { labelOf } from '../../viewer/tools/measure-format.ts'
import type { ToolPanelProps } from './index.ts'

const NAMES: Record<QuotationType, string> = { distance: 'Distance', angle: 'Angle' }
const STEPS: Record<QuotationType, string[]> = {
  distance: ['Click the first point on the model.', 'Click the second point.'],
  angle: ['Click the first point on the model.', 'Click the vertex of the angle.', 'Click the third point.'],
}

function status(mode: QuotationType | null, placed: number, count: number, said: string): string {
  if (mode && count >= MAX_QUOTATIONS)
    return `At most ${MAX_QUOTATIONS} dimensions: delete one to add another.`
  if (!mode)
    return `${said} Choose Distance or Angle, then click points on the model. Points snap to corners and edges.`.trim()
  return `${said} ${STEPS[mode][placed] ?? ''} Esc cancels.`.trim()
}

/** A camera pose looking at the dimension from the current direction, far enough to see it whole. */
function poseFor(q: Quotation, from: { position: Vec3; target: Vec3 }): { position: Vec3; target: Vec3 } {
  const n = q.points.length
  const target = [0, 1, 2].map((k) => q.points.reduce((s, p) => s + (p[k] ?? 0), 0) / n) as Vec3
  let size = 0
  for (const a of q.points)
    for (const b of q.points) size = Math.max(size, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]))
  const dir = from.position.map((v, k) => v - (from.target[k] ?? 0))
  const len = Math.hypot(...dir) || 1
  const distance = Math.max(size * 2.2, 1e-3)
  return { target, position: target.map((v, k) => v + ((dir[k] ?? 0) / len) * distance) as Vec3 }
}

function useMeasureControl(props: ToolPanelProps<'measure'>) {
  const control = measureControl(props.engine?.renderer.domElement)
  const [mode, setMode] = useState<QuotationType | null>(control?.mode ?? null)
  const [placed, setPlaced] = useState(0)
  const [said, setSaid] = useState('')
  // The callbacks outlive a render: they read the latest value and onChange.
  const latest = useRef(props)
  latest.current = props
  useEffect(() => {
    if (!control) return
    control.onAdded = (q) => {
      const { value, onChange } = latest.current
      onChange({ enabled: true, quotations: [...value.quotations, q] })
    }
    control.onProgress = () => {
      setMode(control.mode)
      setPlaced(control.placed())
      setSaid(control.said)
    }
    return () => {
      control.onAdded = null
      control.onProgress = null
      control.setMode(null)
    }
  }, [control])
  return { control, mode, placed, said }
}

function QuotationList(props: ToolPanelProps<'measure'> & { unit: 'm' | 'u' }) {
  const { value, onChange, engine } = props
  const remove = (id: string) =>
    onChange({ ...value, quotations: value.quotations.filter((q) => q.id !== id) })
  if (value.quotations.length === 0) return <p class="muted">No dimensions yet.</p>
  return (
    <ul class="measure-list" aria-label="Dimensions">
      {value.quotations.map((q) => {
        const label = labelOf(q, props.unit)
        const name = `${NAMES[q.type]} ${label}`
        return (
          <li key={q.id} data-quotation={q.id}>
            <span class="measure-type">{NAMES[q.type]}</span>
            <span class="measure-value">{label}</span>
            <button
              type="button"
              class="ghost small"
              aria-label={`Show ${name}`}
              onClick={() => engine?.setCamera(poseFor(q, engine.getCamera()), true)}
            >
              Show
            </button>
            <button
              type="button"
              class="ghost small"
              aria-label={`Delete ${name}`}
              onClick={() => remove(q.id)}
            >
              Delete
            </button>
          </li>
        )
      })}
    </ul>
  )
}

export function MeasurePanel(props: ToolPanelProps<'measure'>) {
  const { value, onChange } = props
  const { control, mode, placed, said } = useMeasureControl(props)
  const choose = (next: QuotationType): void => {
    control?.setMode(mode === next ? null : next)
    if (mode === next) return
    if (!value.enabled) onChange({ ...value, enabled: true })
    // Points are placed in the 3D view: with the keyboard too, from there at once.
    props.engine?.renderer.domElement.focus()
  }
  return (
    <div class="measure-panel">
      <div class="measure-modes">
        {(['distance', 'angle'] as const).map((m) => (
          <button
            key={m}
            type="button"
            class="ghost small"
            aria-pressed={mode === m}
            onClick={() => choose(m)}
          >
            {NAMES[m]}
          </button>
        ))}
      </div>
      <p class="measure-status" aria-live="polite">
        {status(mode, placed, value.quotations.length, said)}
      </p>
      <p class="measure-keys">
        Keyboard: in the 3D view, the arrows move a cursor (Shift: farther), Enter places a point.
      </p>
      <label class="check measure-show">
        <input
          type="checkbox"
          checked={value.enabled}
          onChange={(e) => onChange({ ...value, enabled: e.currentTarget.checked })}
        />
        Show dimensions
      </label>
      <QuotationList {...props} unit={control?.unit ?? 'u'} />
      {value.quotations.length > 0 && (
        <button
          type="button"
          class="ghost small danger"
          onClick={() => onChange({ ...value, quotations: [] })}
        >
          Delete all
        </button>
      )}
    </div>
  )
}
