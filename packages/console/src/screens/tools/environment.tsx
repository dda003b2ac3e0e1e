// The Display panel (slice "environment"): image-based lighting from a built-in environment, its
// brightness and orientation, the skybox, and the render mode. Native inputs only: checkboxes,
// a select, two sliders and a radio group, so every control works with the keyboard as the
// browser's own (Tab, Space, arrows).
import {
  BRIGHTNESS_MAX,
  type EnvironmentName,
  type EnvironmentSettings,
  type RenderMode,
} from '../../viewer/state/environment.ts'
import type { ToolPanelProps } from './index.ts'

const ENVIRONMENT_LABELS: Record<EnvironmentName, string> = {
  room: 'Studio room',
  neutral: 'Neutral grey',
}

const MODE_LABELS: Record<RenderMode, string> = {
  phong: 'Shaded',
  'shaded-edges': 'Shaded with edges',
  flat: 'Flat',
  wireframe: 'Wireframe',
}

function Toggle(props: { label: string; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <label class="display-check">
      <input
        class="display-choice"
        type="checkbox"
        checked={props.checked}
        onChange={(e) => props.onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      {props.label}
    </label>
  )
}

function EnvironmentControls(props: {
  value: EnvironmentSettings
  set: (p: Partial<EnvironmentSettings>) => void
}) {
  const { value, set } = props
  return (
    <fieldset class="display-group" disabled={!value.enabled}>
      <legend>Environment</legend>
      <label class="display-field">
        Environment
        <select
          class="display-control"
          value={value.file}
          onChange={(e) => set({ file: (e.currentTarget as HTMLSelectElement).value as EnvironmentName })}
        >
          {Object.entries(ENVIRONMENT_LABELS).map(([name, label]) => (
            <option key={name} value={name}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label class="display-field">
        Brightness
        <span class="display-value" aria-hidden="true">
          {value.brightness.toFixed(2)}
        </span>
        <input
          class="display-control"
          type="range"
          min={0}
          max={BRIGHTNESS_MAX}
          step={0.05}
          value={value.brightness}
          onInput={(e) => set({ brightness: Number((e.currentTarget as HTMLInputElement).value) })}
        />
      </label>
      <label class="display-field">
        Orientation
        <span class="display-value" aria-hidden="true">
          {Math.round(value.orientation)}°
        </span>
        <input
          class="display-control"
          type="range"
          min={0}
          max={359}
          step={1}
          value={value.orientation}
          aria-valuetext={`${Math.round(value.orientation)} degrees`}
          onInput={(e) => set({ orientation: Number((e.currentTarget as HTMLInputElement).value) })}
        />
      </label>
      <Toggle
        label="Lighting from the environment (IBL)"
        checked={value.ibl}
        onChange={(ibl) => set({ ibl })}
      />
      <Toggle
        label="Show as background (skybox)"
        checked={value.skybox}
        onChange={(skybox) => set({ skybox })}
      />
    </fieldset>
  )
}

export function EnvironmentPanel(props: ToolPanelProps<'environment'>) {
  const { value } = props
  const set = (patch: Partial<EnvironmentSettings>) => props.onChange({ ...value, ...patch })
  return (
    <div class="display-panel">
      <Toggle label="Environment on" checked={value.enabled} onChange={(enabled) => set({ enabled })} />
      <EnvironmentControls value={value} set={set} />
      <fieldset class="display-group">
        <legend>Render mode</legend>
        {(Object.keys(MODE_LABELS) as RenderMode[]).map((mode) => (
          <label key={mode} class="display-check">
            <input
              class="display-choice"
              type="radio"
              name="render-mode"
              value={mode}
              checked={value.renderMode === mode}
              onChange={() => set({ renderMode: mode })}
            />
            {MODE_LABELS[mode]}
          </label>
        ))}
      </fieldset>
    </div>
  )
}
