// Layers: groups of parts shown or hidden together (what a layer is per format: viewer/tools/layers.ts
// and docs/console.md). `enabledLayers` lists the layers turned OFF, each
// `{ "kind": "storey" | "class" | "group" | "material", "name": "...", "visible": false }`; a layer
// not listed is shown, so a model's new layers appear. Entries with `"visible": true` (a client
// listing every layer) or of an unknown kind are skipped. `layersEnabled` off shows every layer
// whatever the list holds (the list is kept for when it is turned on again). Read and written, the
// list holds each (kind, name) once (the first entry wins) and at most MAX_LAYERS_OFF entries (the
// rest are dropped): a model with more layers than that is not one a person toggles by hand, and
// the server bounds opaque arrays anyway.
import type { Slice } from './slice.ts'

const LAYER_KINDS = ['storey', 'class', 'group', 'material'] as const
export type LayerKind = (typeof LAYER_KINDS)[number]

export interface LayerRef {
  kind: LayerKind
  name: string
}

export interface LayersSettings {
  enabled: boolean
  /** The layers turned off. */
  off: LayerRef[]
}

function layerOff(entry: unknown): LayerRef | null {
  if (typeof entry !== 'object' || entry === null) return null
  const { kind, name, visible } = entry as { kind?: unknown; name?: unknown; visible?: unknown }
  if (visible !== false || typeof name !== 'string') return null
  const known = LAYER_KINDS.find((k) => k === kind)
  return known ? { kind: known, name } : null
}

/** How many layers off the record holds at most; later entries are dropped. */
export const MAX_LAYERS_OFF = 2000

/** Each (kind, name) once, in first-seen order, at most MAX_LAYERS_OFF. */
function distinct(layers: LayerRef[]): LayerRef[] {
  const seen = new Set<string>()
  const out: LayerRef[] = []
  for (const l of layers) {
    const key = `${l.kind}\u0000${l.name}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(l)
    if (out.length === MAX_LAYERS_OFF) break
  }
  return out
}

export const layersSlice: Slice<LayersSettings> = {
  defaults: () => ({ enabled: false, off: [] }),
  read(record) {
    const entries = Array.isArray(record.enabledLayers) ? record.enabledLayers : []
    const off = distinct(entries.map(layerOff).filter((l): l is LayerRef => l !== null))
    return { enabled: record.layersEnabled === true, off }
  },
  write: (s) => ({
    layersEnabled: s.enabled,
    enabledLayers: distinct(s.off).map((l) => ({ kind: l.kind, name: l.name, visible: false })),
  }),
}
