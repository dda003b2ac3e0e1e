// Which section tool draws on which canvas: the panel finds the tool through the engine's canvas
// (renderer.domElement). Kept apart from section.ts so that the panel's chunk does not pull in
// three.js (the viewer's chunk is loaded only when a model opens).
import type { SectionTool } from './section.ts'

const byCanvas = new WeakMap<HTMLCanvasElement, SectionTool>()

export function registerSectionTool(canvas: HTMLCanvasElement, tool: SectionTool | null): void {
  if (tool) byCanvas.set(canvas, tool)
  else byCanvas.delete(canvas)
}

export function sectionToolOf(canvas: HTMLCanvasElement): SectionTool | undefined {
  return byCanvas.get(canvas)
}
