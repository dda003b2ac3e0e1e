// Colour by value (no DOM): the found parts' values of one property become a legend, each entry a
// colour, its words and the parts it holds. Text and yes/no values get a categorical palette (the
// commonest first; past nine values the rest share one entry), numbers a ramp from dark violet to
// yellow (one entry per value when there are few, else equal ranges from the least to the most).
import type { PropertyValue } from '../api/index.ts'
import { shownValue } from './property-values.ts'

interface LegendEntry {
  /** The value or range in words. */
  label: string
  /** `#rrggbb`. */
  colour: string
  /** The parts drawn in this colour. */
  ids: string[]
}

export interface Legend {
  kind: 'values' | 'ranges'
  entries: LegendEntry[]
  /** Found parts that do not have the property: left in their own colour. */
  missing: string[]
}

/** Tableau 10's first nine, distinct in hue and lightness; the tenth colours "Other values". */
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
] as const
export const OTHER = '#bab0ac'
/** Viridis at five stops: dark violet to yellow, in order of lightness (readable without hue). */
export const RAMP = ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'] as const
/** Numbers fall in this many equal ranges when there are more distinct values than that. */
const RANGES = 5

/** A point along the ramp, 0 to 1, as `#rrggbb` (linear between its stops). */
export function rampColour(t: number): string {
  const at = Math.min(Math.max(t, 0), 1) * (RAMP.length - 1)
  const i = Math.min(Math.floor(at), RAMP.length - 2)
  const f = at - i
  const hex = (c: string, k: number) => Number.parseInt(c.slice(1 + 2 * k, 3 + 2 * k), 16)
  const channel = (k: number) =>
    Math.round(hex(RAMP[i] as string, k) * (1 - f) + hex(RAMP[i + 1] as string, k) * f)
      .toString(16)
      .padStart(2, '0')
  return `#${channel(0)}${channel(1)}${channel(2)}`
}

function categories(values: Map<string, PropertyValue>): LegendEntry[] {
  const groups = new Map<string, string[]>()
  for (const [id, value] of values) {
    const label = shownValue(value)
    const ids = groups.get(label)
    if (ids) ids.push(id)
    else groups.set(label, [id])
  }
  const sorted = [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
  const kept = sorted.length > PALETTE.length ? sorted.slice(0, PALETTE.length - 1) : sorted
  const entries = kept.map(([label, ids], i) => ({ label, colour: PALETTE[i] as string, ids }))
  const rest = sorted.slice(kept.length)
  if (rest.length > 0)
    entries.push({
      label: `Other values (${rest.length})`,
      colour: OTHER,
      ids: rest.flatMap(([, ids]) => ids),
    })
  return entries
}

function ranges(values: Map<string, number>): LegendEntry[] {
  const distinct = [...new Set(values.values())].sort((a, b) => a - b)
  if (distinct.length <= RANGES) {
    return distinct.map((n, i) => ({
      label: shownValue(n),
      colour: rampColour(distinct.length === 1 ? 0.5 : i / (distinct.length - 1)),
      ids: [...values].filter(([, v]) => v === n).map(([id]) => id),
    }))
  }
  const min = distinct[0] as number
  const step = ((distinct.at(-1) as number) - min) / RANGES
  const entries = Array.from({ length: RANGES }, (_, i) => ({
    label: `${shownValue(min + i * step)} – ${shownValue(i === RANGES - 1 ? (distinct.at(-1) as number) : min + (i + 1) * step)}`,
    colour: rampColour(i / (RANGES - 1)),
    ids: [] as string[],
  }))
  for (const [id, n] of values) entries[Math.min(Math.floor((n - min) / step), RANGES - 1)]?.ids.push(id)
  return entries
}

/** The legend of these parts' values (undefined: the part does not have the property). */
export function legendOf(values: ReadonlyMap<string, PropertyValue | undefined>): Legend {
  const present = new Map<string, PropertyValue>()
  const missing: string[] = []
  for (const [id, value] of values) {
    if (value === undefined) missing.push(id)
    else present.set(id, value)
  }
  const numbers = [...present.values()].every((v) => typeof v === 'number')
  if (present.size > 0 && numbers)
    return { kind: 'ranges', entries: ranges(present as Map<string, number>), missing }
  return { kind: 'values', entries: categories(present), missing }
}

/** Node ID → colour, for the engine. */
export function coloursOf(legend: Legend): Map<string, string> {
  return new Map(legend.entries.flatMap((e) => e.ids.map((id) => [id, e.colour] as const)))
}
