// Transparency (x-ray): every part but the kept ones drawn as a ghost. The ghosts' opacity is
// `transparencyEffectParameters.alphaCoefficient` (0..1; the record's default is 0.5). The effect is
// on when `enabledEffects` holds `{ "type": "xray", "keep": ["nodeId", ...] }` (the kept parts: drawn
// normally). Entries of `enabledEffects` written by other clients (another `type`) are kept as they
// are and written back after ours, so that saving a view here does not drop another viewer's effects (past
// the server's 10,000 entries in all, the last of theirs are left out).
import { numberIn, type Slice, strings } from './slice.ts'

export interface XraySettings {
  enabled: boolean
  /** The ghosts' opacity, 0..1. */
  opacity: number
  /** Scene-tree node ids drawn normally. */
  keep: string[]
  /** Other clients' entries of `enabledEffects`, kept untouched. */
  others: unknown[]
}

const XRAY_DEFAULT_OPACITY = 0.5
/** The server's bound on `enabledEffects` (an opaque array: maxItems 10,000). */
const MAX_EFFECTS = 10_000

function isXray(entry: unknown): entry is { type: 'xray'; keep?: unknown } {
  return typeof entry === 'object' && entry !== null && (entry as { type?: unknown }).type === 'xray'
}

export const xraySlice: Slice<XraySettings> = {
  defaults: () => ({ enabled: false, opacity: XRAY_DEFAULT_OPACITY, keep: [], others: [] }),
  read(record) {
    const effects = Array.isArray(record.enabledEffects) ? record.enabledEffects : []
    const entry = effects.find(isXray)
    const params = record.transparencyEffectParameters as { alphaCoefficient?: unknown } | null | undefined
    const alpha = typeof params === 'object' && params !== null ? params.alphaCoefficient : undefined
    return {
      enabled: entry !== undefined,
      opacity: numberIn(alpha, 0, 1, XRAY_DEFAULT_OPACITY),
      keep: strings(entry?.keep),
      others: effects.filter((e) => !isXray(e)),
    }
  },
  write: (s) => ({
    transparencyEffectParameters: { alphaCoefficient: s.opacity },
    // The server takes at most MAX_EFFECTS entries: ours first, the others' cut to fit.
    enabledEffects: [...(s.enabled ? [{ type: 'xray', keep: s.keep }] : []), ...s.others].slice(
      0,
      MAX_EFFECTS,
    ),
  }),
}
