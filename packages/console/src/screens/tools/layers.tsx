// The layers panel: the model's layers (viewer/tools/layers.ts) by kind, a checkbox each (checked:
// shown) with its count of parts; unchecking one turns the layers on. "Use layers" off shows all.

import { useMemo } from 'preact/hooks'
import type { LayerKind, LayerRef } from '../../viewer/state/layers.ts'
import type { LayersTool } from '../../viewer/tools/layers.ts'
import type { ToolPanelProps } from './index.ts'

const HEADINGS: Record<LayerKind, string> = {
  storey: 'Storeys',
  class: 'Classes',
  group: 'Groups',
  material: 'Materials',
}

const key = (l: LayerRef): string => `${l.kind}\u0000${l.name}`

export function LayersPanel({ value, onChange, engine }: ToolPanelProps<'layers'>) {
  // The tools' type is their slice's interface; the layers tool also lists what the model has.
  // Listed and sorted once per engine, not on every render (the screen re-renders as the camera moves).
  const tool = engine?.tools.layers as LayersTool | undefined
  const layers = useMemo(() => tool?.list() ?? [], [tool])
  const offKeys = useMemo(() => new Set(value.off.map(key)), [value.off])
  const isOff = (ref: LayerRef) => offKeys.has(key(ref))
  const toggle = (ref: LayerRef, shown: boolean): void => {
    // Layers turned off while "Use layers" was off start from all shown: what the boxes showed.
    const rest = value.enabled ? value.off.filter((l) => key(l) !== key(ref)) : []
    onChange({ enabled: true, off: shown ? rest : [...rest, { kind: ref.kind, name: ref.name }] })
  }
  const kinds = (Object.keys(HEADINGS) as LayerKind[]).filter((k) => layers.some((l) => l.kind === k))
  return (
    <div class="tool-shading">
      <label class="tool-check">
        <input
          type="checkbox"
          checked={value.enabled}
          onChange={(e) => onChange({ ...value, enabled: e.currentTarget.checked })}
        />
        Use layers
      </label>
      {layers.length === 0 && <p class="tool-note">This model has no layers.</p>}
      {kinds.map((kind) => (
        <fieldset key={kind} class="tool-layers">
          <legend>{HEADINGS[kind]}</legend>
          {layers
            .filter((l) => l.kind === kind)
            .map((l) => (
              <label key={l.name} class="tool-check">
                <input
                  type="checkbox"
                  checked={!(value.enabled && isOff(l))}
                  onChange={(e) => toggle(l, e.currentTarget.checked)}
                />
                <span class="tool-layer-name">{l.name}</span>{' '}
                <span class="tool-count">
                  {l.parts} {l.parts === 1 ? 'part' : 'parts'}
                </span>
              </label>
            ))}
        </fieldset>
      ))}
      {value.off.length > 0 && (
        <button
          type="button"
          class="ghost small"
          onClick={() => onChange({ enabled: value.enabled, off: [] })}
        >
          Show all layers
        </button>
      )}
    </div>
  )
}
