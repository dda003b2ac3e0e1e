// The viewer's tool panels, in toolbar order. Each entry is one button of the toolbar under the 3D
// view and the panel it opens; a panel edits its tool's slice of the view (viewer/state/) and the
// screen applies it to the engine. Adding a tool: its panel file here and one entry below.
import type { ComponentType } from 'preact'
import type { ViewerEngine } from '../../viewer/engine.ts'
import type { ViewSettings } from '../../viewer/state/index.ts'
import type { FileAccess } from '../access.ts'
import { CameraPanel } from './camera.tsx'
import { EnvironmentPanel } from './environment.tsx'
import { ExplodePanel } from './explode.tsx'
import { LayersPanel } from './layers.tsx'
import { MeasurePanel } from './measure.tsx'
import { SectionPanel } from './section.tsx'
import { XrayPanel } from './xray.tsx'

export interface ToolPanelProps<K extends keyof ViewSettings> {
  value: ViewSettings[K]
  onChange: (next: ViewSettings[K]) => void
  engine: ViewerEngine | null
  access: FileAccess
  /** The selected parts (scene-tree ids): x-ray keeps them. */
  selection: string[]
}

export interface ToolEntry<K extends keyof ViewSettings = keyof ViewSettings> {
  /** The slice the panel edits. */
  slice: K
  /** The button's text (and the panel's heading). */
  label: string
  /** The key that opens it from the 3D view (one letter, shown in the button's tooltip). */
  key: string
  Panel: ComponentType<ToolPanelProps<K>>
}

export const TOOL_PANELS: ToolEntry[] = [
  // Camera first: the tool people reach for most; measure and environment go after it.
  toolEntry({ slice: 'camera', label: 'Camera', key: 'C', Panel: CameraPanel }),
  toolEntry({ slice: 'section', label: 'Section', key: 'S', Panel: SectionPanel }),
  toolEntry({ slice: 'explode', label: 'Explode', key: 'E', Panel: ExplodePanel }),
  toolEntry({ slice: 'xray', label: 'X-ray', key: 'X', Panel: XrayPanel }),
  toolEntry({ slice: 'layers', label: 'Layers', key: 'L', Panel: LayersPanel }),
  toolEntry({ slice: 'measure', label: 'Measure', key: 'M', Panel: MeasurePanel }),
  toolEntry({ slice: 'environment', label: 'Display', key: 'D', Panel: EnvironmentPanel }),
]

/** An entry for TOOL_PANELS (a panel typed for its own slice goes into the list of all). */
function toolEntry<K extends keyof ViewSettings>(entry: ToolEntry<K>): ToolEntry {
  return entry as unknown as ToolEntry
}
