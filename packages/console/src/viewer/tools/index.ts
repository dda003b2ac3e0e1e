// The viewer's tools, each made once per engine from the engine's context. A tool's key is the name
// of its slice in viewer/state/index.ts (ViewSettings), so the engine hands each its own slice.
import type { ViewSettings } from '../state/index.ts'
import { EnvironmentTool } from './environment.ts'
import { ExplodeTool } from './explode.ts'
import { LayersTool } from './layers.ts'
import { MeasureTool } from './measure.ts'
import { SectionTool } from './section.ts'
import type { ViewerContext, ViewerTool } from './tool.ts'
import { XrayTool } from './xray.ts'

type ToolSlices = Omit<ViewSettings, 'camera' | 'visibility' | 'selection'>

export type Tools = { [K in keyof ToolSlices]: ViewerTool<ToolSlices[K]> }

export function makeTools(context: ViewerContext): Tools {
  return {
    section: new SectionTool(context),
    explode: new ExplodeTool(context),
    xray: new XrayTool(context),
    layers: new LayersTool(context),
    measure: new MeasureTool(context),
    environment: new EnvironmentTool(context),
  }
}
