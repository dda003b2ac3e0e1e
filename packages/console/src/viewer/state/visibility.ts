// Hidden parts: a `{type: "hidden", nodes: [...]}` entry in `modifiers`, `modifiersEnabled` when
// any part is hidden. Other entries of `modifiers` (written by another client) are ignored.
import { type Slice, strings } from './slice.ts'

export interface VisibilitySettings {
  hidden: string[]
}

export const visibilitySlice: Slice<VisibilitySettings> = {
  defaults: () => ({ hidden: [] }),
  read(record) {
    const modifiers = Array.isArray(record.modifiers) ? record.modifiers : []
    const entry = modifiers.find(
      (m): m is { type: string; nodes: unknown } =>
        typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'hidden',
    )
    return { hidden: strings(entry?.nodes) }
  },
  write: (s) => ({
    modifiers: [{ type: 'hidden', nodes: s.hidden }],
    modifiersEnabled: s.hidden.length > 0,
  }),
}
