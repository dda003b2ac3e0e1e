// A saved view as the viewer holds it: one typed slice per tool, read from and written to the
// configuration record through each slice's mapping. Adding a tool: its slice file here, one line in
// SLICES, and its field ownership in docs/console.md.
import { type CameraSettings, cameraSlice } from './camera.ts'
import { type EnvironmentSettings, environmentSlice } from './environment.ts'
import { type ExplodeSettings, explodeSlice } from './explode.ts'
import { type LayersSettings, layersSlice } from './layers.ts'
import { type MeasureSettings, measureSlice } from './measure.ts'
import { type SectionSettings, sectionSlice } from './section.ts'
import { type SelectionSettings, selectionSlice } from './selection.ts'
import type { RecordIn, RecordOut, Slice } from './slice.ts'
import { type VisibilitySettings, visibilitySlice } from './visibility.ts'
import { type XraySettings, xraySlice } from './xray.ts'

export interface ViewSettings {
  camera: CameraSettings
  visibility: VisibilitySettings
  selection: SelectionSettings
  section: SectionSettings
  explode: ExplodeSettings
  xray: XraySettings
  layers: LayersSettings
  measure: MeasureSettings
  environment: EnvironmentSettings
}

export type SliceName = keyof ViewSettings

/** Every slice by name (exported for the test that checks no two write the same field). */
export const SLICES: { [K in SliceName]: Slice<ViewSettings[K]> } = {
  camera: cameraSlice,
  visibility: visibilitySlice,
  selection: selectionSlice,
  section: sectionSlice,
  explode: explodeSlice,
  xray: xraySlice,
  layers: layersSlice,
  measure: measureSlice,
  environment: environmentSlice,
}

const NAMES = Object.keys(SLICES) as SliceName[]

function each<R>(
  make: <K extends SliceName>(name: K, slice: Slice<ViewSettings[K]>) => R,
): Record<SliceName, R> {
  return Object.fromEntries(NAMES.map((name) => [name, make(name, SLICES[name])])) as Record<SliceName, R>
}

export function defaultView(): ViewSettings {
  return each((_name, slice) => slice.defaults()) as ViewSettings
}

export function readView(record: RecordIn): ViewSettings {
  return each((_name, slice) => slice.read(record)) as ViewSettings
}

export function writeView(view: ViewSettings): RecordOut {
  const out: RecordOut = {}
  for (const name of NAMES) Object.assign(out, (SLICES[name] as Slice<unknown>).write(view[name]))
  return out
}
