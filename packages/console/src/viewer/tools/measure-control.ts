// What the screens may ask of the measure tool beyond its slice: the placing mode (transient, not
// saved), the model's unit, and a callback when clicks complete a dimension (the screen then adds it
// to the view). Without three.js, so that the panel and the model loader can import it from the
// main bundle; the tool registers itself under its canvas.
import type { Quotation, QuotationType } from '../state/measure.ts'
import type { ModelUnit } from './measure-format.ts'

export interface MeasureControl {
  /** The dimension being placed by clicks, or null (clicks select as usual). */
  mode: QuotationType | null
  setMode(mode: QuotationType | null): void
  /** How many points of the dimension in progress are placed. */
  placed(): number
  unit: ModelUnit
  setUnit(unit: ModelUnit): void
  /** What the last point placed did, for the panel's status line (a screen reader hears it). */
  said: string
  /** Clicks (or the keyboard) completed a dimension. */
  onAdded: ((q: Quotation) => void) | null
  /** The mode or the points placed changed (the panel's status line). */
  onProgress: (() => void) | null
}

const controls = new WeakMap<HTMLCanvasElement, MeasureControl>()

export function registerMeasure(canvas: HTMLCanvasElement, control: MeasureControl | null): void {
  if (control) controls.set(canvas, control)
  else controls.delete(canvas)
}

export function measureControl(canvas: HTMLCanvasElement | undefined): MeasureControl | undefined {
  return canvas ? controls.get(canvas) : undefined
}
