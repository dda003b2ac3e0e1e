// The section box in the section panel: on/off, "Fit to selection" and "Fit to model", and a pair of
// sliders per axis for its two faces (keyboard: arrows, Page Up/Down, Home/End).
import type { SectionSettings } from '../../viewer/state/section.ts'
import type { Vec3 } from '../../viewer/state/slice.ts'
import type { SectionTool } from '../../viewer/tools/section.ts'
import { moveBoxSide, setBox } from '../../viewer/tools/section-edit.ts'

const AXES = ['X', 'Y', 'Z']

function round(n: number): number {
  return Math.round(n * 1e4) / 1e4
}

interface Props {
  value: SectionSettings
  onChange: (next: SectionSettings) => void
  tool: SectionTool | undefined
}

function fit(props: Props, ids: string[]): void {
  const around = props.tool?.boxAround(ids)
  if (around) props.onChange(setBox(props.value, around.min, around.max))
}

function Sliders({ value, onChange, tool }: Props) {
  const box = value.box
  if (!box) return null
  const { centre, radius } = tool?.extent() ?? { centre: [0, 0, 0] as Vec3, radius: 1 }
  return (
    <div class="section-box-axes">
      {AXES.map((axis, i) => {
        const c = centre[i] ?? 0
        const lo = Math.min(c - radius, box.min[i] ?? 0)
        const hi = Math.max(c + radius, box.max[i] ?? 0)
        const step = round((hi - lo) / 200) || 0.001
        return (['min', 'max'] as const).map((side) => (
          <label key={`${axis}${side}`} class="section-box-side">
            <span>
              {axis} {side}
            </span>
            <input
              type="range"
              min={lo}
              max={hi}
              step={step}
              value={box[side][i]}
              aria-valuetext={String(round(box[side][i] ?? 0))}
              onInput={(e) => onChange(moveBoxSide(value, i, side, e.currentTarget.valueAsNumber))}
            />
          </label>
        ))
      })}
    </div>
  )
}

export function SectionBoxControls(props: Props) {
  const { value, onChange, tool } = props
  const box = value.box
  return (
    <fieldset class="section-box">
      <legend>Section box</legend>
      <label class="section-on">
        <input
          type="checkbox"
          checked={box?.enabled === true}
          onChange={(e) => {
            if (box) onChange({ ...value, box: { ...box, enabled: e.currentTarget.checked } })
            else if (e.currentTarget.checked) fit(props, [])
          }}
        />
        Box on
      </label>
      <div class="section-actions">
        <button
          type="button"
          class="ghost small"
          title="The selected part's bounds (the whole model when nothing is selected)"
          onClick={() => fit(props, tool?.selection() ?? [])}
        >
          Fit to selection
        </button>
        <button type="button" class="ghost small" onClick={() => fit(props, [])}>
          Fit to model
        </button>
        {box && (
          <input
            type="color"
            aria-label="Section box cap colour"
            value={box.capColor}
            onChange={(e) => onChange({ ...value, box: { ...box, capColor: e.currentTarget.value } })}
          />
        )}
        {box && (
          <button type="button" class="ghost small" onClick={() => onChange({ ...value, box: null })}>
            Remove box
          </button>
        )}
      </div>
      <Sliders {...props} />
    </fieldset>
  )
}
