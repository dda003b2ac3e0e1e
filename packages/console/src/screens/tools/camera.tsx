// The Camera panel: projection, field-of-view preset, the model's up, the near plane, whether a
// saved view moves the camera, and the standard views. Every control is a native input or button
// (keyboard as is); the 3D view has keys for the views and the projection too (viewer-keys.ts).
import type { StandardView } from '../../viewer/engine.ts'
import {
  type CameraSettings,
  FOV_PRESETS,
  type Projection,
  UP_VECTORS,
  type UpVector,
} from '../../viewer/state/camera.ts'
import type { ToolPanelProps } from './index.ts'

/** The standard views in the panel's order, with their key in the 3D view. */
export const STANDARD_VIEWS: { view: StandardView; label: string; key: string }[] = [
  { view: 'front', label: 'Front', key: '1' },
  { view: 'back', label: 'Back', key: '2' },
  { view: 'left', label: 'Left', key: '3' },
  { view: 'right', label: 'Right', key: '4' },
  { view: 'top', label: 'Top', key: '5' },
  { view: 'bottom', label: 'Bottom', key: '6' },
  { view: 'iso', label: 'Iso', key: '7' },
]

/** A near plane to start from when automatic is turned off: the one drawing now, 3 significant digits. */
function nearNow(engine: ToolPanelProps<'camera'>['engine']): number {
  const near = engine?.camera.near ?? 0.01
  return Number(Math.max(near, 1e-3).toPrecision(3))
}

export function CameraPanel(props: ToolPanelProps<'camera'>) {
  const { value, engine } = props
  // pose null: a setting changes, the camera stays where it is (the screen saves the pose it reads).
  const set = (patch: Partial<CameraSettings>) => props.onChange({ ...value, ...patch, pose: null })
  return (
    <div class="camera-tool">
      <fieldset>
        <legend>Projection</legend>
        {(['perspective', 'orthographic'] as Projection[]).map((p) => (
          <label key={p}>
            <input
              type="radio"
              name="camera-projection"
              checked={value.projection === p}
              onChange={() => set({ projection: p })}
            />
            {p === 'perspective' ? 'Perspective' : 'Orthographic'}
          </label>
        ))}
      </fieldset>
      <label>
        Field of view
        <select value={value.fovIndex} onChange={(e) => set({ fovIndex: Number(e.currentTarget.value) })}>
          {FOV_PRESETS.map((deg, i) => (
            <option key={deg} value={i}>
              {deg}°
            </option>
          ))}
        </select>
      </label>
      <label>
        Up
        <select value={value.up} onChange={(e) => set({ up: e.currentTarget.value as UpVector })}>
          {UP_VECTORS.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <NearPlane value={value.near} onChange={(near) => set({ near })} start={() => nearNow(engine)} />
      <label class="check">
        <input
          type="checkbox"
          checked={value.disabled}
          onChange={(e) => set({ disabled: e.currentTarget.checked })}
        />
        Saved views leave the camera where it is
      </label>
      <fieldset class="camera-views">
        <legend>Standard views</legend>
        {STANDARD_VIEWS.map((v) => (
          <button
            key={v.view}
            type="button"
            class="ghost small"
            aria-keyshortcuts={v.key}
            title={`${v.label} view (${v.key})`}
            onClick={() => engine?.standardView(v.view)}
          >
            {v.label}
          </button>
        ))}
      </fieldset>
    </div>
  )
}

function NearPlane(props: {
  value: number | null
  onChange: (near: number | null) => void
  start: () => number
}) {
  // Taken when committed (Enter or leaving the field), not at each keystroke ("0.0" on the way to "0.05").
  const commit = (input: HTMLInputElement) => {
    const near = Number(input.value)
    if (input.value !== '' && Number.isFinite(near) && near > 0) props.onChange(near)
  }
  return (
    <fieldset>
      <legend>Near plane</legend>
      <label class="check">
        <input
          type="checkbox"
          checked={props.value === null}
          onChange={(e) => props.onChange(e.currentTarget.checked ? null : props.start())}
        />
        Automatic
      </label>
      {props.value !== null && (
        <label>
          Distance (m)
          <input
            type="number"
            min="0.001"
            step="any"
            value={props.value}
            onChange={(e) => commit(e.currentTarget)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') commit(e.currentTarget)
            }}
          />
        </label>
      )}
    </fieldset>
  )
}
