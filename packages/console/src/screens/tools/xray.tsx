// The x-ray panel: ghost every part but the selection, the ghosts' opacity, and taking the current
// selection as the kept set while the x-ray is on.
import { useMemo } from 'preact/hooks'
import type { ToolPanelProps } from './index.ts'

/** Same ids in any order: a Set, linear (with 20,000 selected, `includes` in a loop was 4×10⁸ steps). */
function sameIds(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false
  const inB = new Set(b)
  return a.every((id) => inB.has(id))
}

export function XrayPanel({ value, onChange, selection }: ToolPanelProps<'xray'>) {
  const percent = Math.round(value.opacity * 100)
  const kept = value.keep.length
  // Memoised: the screen re-renders this panel on every camera step.
  const keptIsSelection = useMemo(() => sameIds(selection, value.keep), [selection, value.keep])
  return (
    <div class="tool-shading">
      <label class="tool-check">
        <input
          type="checkbox"
          checked={value.enabled}
          onChange={(e) => onChange({ ...value, enabled: e.currentTarget.checked, keep: [...selection] })}
        />
        X-ray around selection
      </label>
      <p class="tool-note" aria-live="polite">
        {!value.enabled
          ? 'Every part but the selected ones becomes a see-through ghost.'
          : kept === 0
            ? 'Nothing is kept: every part is a ghost.'
            : `${kept} ${kept === 1 ? 'part is' : 'parts are'} drawn normally, the rest as ghosts.`}
      </p>
      {value.enabled && (
        <button
          type="button"
          class="ghost small"
          disabled={keptIsSelection}
          onClick={() => onChange({ ...value, keep: [...selection] })}
        >
          Keep the current selection
        </button>
      )}
      <label class="tool-slider">
        <span>
          Ghost opacity <output>{percent} %</output>
        </span>
        <input
          type="range"
          aria-label="Ghost opacity"
          min={0}
          max={1}
          step={0.05}
          value={value.opacity}
          aria-valuetext={`${percent} %`}
          onInput={(e) => onChange({ ...value, opacity: Number(e.currentTarget.value) })}
        />
      </label>
    </div>
  )
}
