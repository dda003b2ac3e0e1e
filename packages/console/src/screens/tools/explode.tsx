// The exploded view's panel: on/off and the distance (a slider: arrows, Page Up/Down, Home/End).
// Moving the slider turns the view on; turning it on at 0 starts at half a radius, so it shows.
import type { ToolPanelProps } from './index.ts'

const START = 0.5

export function ExplodePanel({ value, onChange }: ToolPanelProps<'explode'>) {
  const percent = Math.round(value.distance * 100)
  return (
    <div class="tool-shading">
      <label class="tool-check">
        <input
          type="checkbox"
          checked={value.enabled}
          onChange={(e) =>
            onChange({
              enabled: e.currentTarget.checked,
              distance: value.distance > 0 ? value.distance : START,
            })
          }
        />
        Exploded view
      </label>
      <label class="tool-slider">
        <span>
          Distance <output>{percent} % of the model's radius</output>
        </span>
        <input
          type="range"
          aria-label="Distance"
          min={0}
          max={1}
          step={0.05}
          value={value.distance}
          aria-valuetext={`${percent} % of the model's radius`}
          onInput={(e) => onChange({ enabled: true, distance: Number(e.currentTarget.value) })}
        />
      </label>
      <p class="tool-note">
        Moves the parts of the first level of the tree that branches away from the centre.
      </p>
    </div>
  )
}
