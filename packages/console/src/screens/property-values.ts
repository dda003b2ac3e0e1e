// The model's own properties as the console shows and searches them (no DOM): values in words
// (booleans Yes/No, numbers in the reader's locale with the exact value kept for the title), the
// groups in the order the panel lists them, the names a search offers (learned from the answers
// read so far) and a search condition made from what was typed.
import type { PropertyValue, SceneProperties, SearchCondition } from '../api/index.ts'

export type PropertyGroups = SceneProperties['nodeIdToProperties'][string]

/** What kind of value a property has had so far (a search sends numbers as numbers). */
type ValueKind = 'number' | 'text' | 'boolean'

/** group → property name → kind: the names seen in the properties read so far. */
export type Catalogue = ReadonlyMap<string, ReadonlyMap<string, ValueKind>>

const DISPLAY = new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 })

/** A value in words: Yes/No, a number in the reader's locale (3 decimals at most), text as it is. */
export function shownValue(value: PropertyValue): string {
  if (typeof value === 'boolean') return value ? 'Yes' : 'No'
  if (typeof value === 'number') return DISPLAY.format(value)
  return value
}

/** The exact value when the shown one rounds it or writes it otherwise (the cell's title). */
export function exactValue(value: PropertyValue): string | undefined {
  if (typeof value !== 'number') return undefined
  const exact = String(value)
  return exact === shownValue(value) ? undefined : exact
}

/** IFC first (the identity of the part), then the groups in the order the model gave them. */
export function orderedGroups(groups: PropertyGroups): [string, PropertyGroups[string]][] {
  const entries = Object.entries(groups)
  return [...entries.filter(([g]) => g === 'IFC'), ...entries.filter(([g]) => g !== 'IFC')]
}

const kindOf = (value: PropertyValue): ValueKind =>
  typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'text'

/** The catalogue with the names of these properties added (the same object when nothing is new). */
export function learnNames(
  catalogue: Catalogue,
  properties: SceneProperties['nodeIdToProperties'],
): Catalogue {
  let next: Map<string, Map<string, ValueKind>> | null = null
  for (const groups of Object.values(properties)) {
    for (const [group, names] of Object.entries(groups)) {
      for (const [name, value] of Object.entries(names)) {
        const known = (next ?? catalogue).get(group)?.get(name)
        const kind = kindOf(value)
        if (known === kind || known === 'text') continue
        next ??= new Map([...catalogue].map(([g, n]) => [g, new Map(n)]))
        const names = next.get(group) ?? new Map<string, ValueKind>()
        // Mixed kinds are searched as text (what every value has).
        names.set(name, known === undefined ? kind : 'text')
        next.set(group, names)
      }
    }
  }
  return next ?? catalogue
}

export type Operator = 'eq' | 'ne' | 'contains' | 'lt' | 'lte' | 'gt' | 'gte' | 'exists'

export const OPERATORS: { op: Operator; label: string }[] = [
  { op: 'eq', label: 'is' },
  { op: 'ne', label: 'is not' },
  { op: 'contains', label: 'contains' },
  { op: 'lt', label: 'is less than' },
  { op: 'lte', label: 'is at most' },
  { op: 'gt', label: 'is more than' },
  { op: 'gte', label: 'is at least' },
  { op: 'exists', label: 'is given' },
]

export interface Query {
  group: string
  name: string
  op: Operator
  value: string
}

type Made = { ok: true; condition: SearchCondition } | { ok: false; message: string }

/** A number as typed: a decimal comma is taken as a point; null when it is none. */
function numberOf(text: string): number | null {
  const trimmed = text.trim().replace(',', '.')
  const n = trimmed === '' ? Number.NaN : Number(trimmed)
  return Number.isFinite(n) ? n : null
}

/** The value sent for `is` / `is not`: a number for a numeric property, true/false for a yes/no one. */
function equalValue(text: string, kind: ValueKind | undefined): string | number | boolean {
  const trimmed = text.trim()
  if (kind === 'number') return numberOf(trimmed) ?? trimmed
  if (kind === 'boolean') {
    const word = trimmed.toLowerCase()
    if (word === 'yes' || word === 'true') return true
    if (word === 'no' || word === 'false') return false
  }
  return trimmed
}

/** The search condition for what was typed, or why it cannot be asked. */
export function conditionOf(query: Query, catalogue: Catalogue): Made {
  const group = query.group.trim()
  const name = query.name.trim()
  if (!group || !name) return { ok: false, message: 'Give a group and a property.' }
  if (query.op === 'exists') return { ok: true, condition: { group, name, op: 'exists' } }
  if (!query.value.trim()) return { ok: false, message: 'Give a value.' }
  if (query.op === 'eq' || query.op === 'ne') {
    const value = equalValue(query.value, catalogue.get(group)?.get(name))
    return { ok: true, condition: { group, name, op: query.op, value } }
  }
  if (query.op === 'contains')
    return { ok: true, condition: { group, name, op: 'contains', value: query.value.trim() } }
  const n = numberOf(query.value)
  if (n === null) return { ok: false, message: 'Give a number: this comparison is between numbers.' }
  return { ok: true, condition: { group, name, op: query.op, value: n } }
}

const isOperator = (op: unknown): op is Operator => OPERATORS.some((o) => o.op === op)

/** A query as the address carries it (`?find=`: JSON of the four fields), for links between screens. */
export function queryParam(query: Query): string {
  const { group, name, op, value } = query
  return encodeURIComponent(JSON.stringify({ group, name, op, value: op === 'exists' ? '' : value }))
}

/** The query of a `find` parameter (already decoded by URLSearchParams), or null when it holds none. */
export function queryFromParam(text: string | null): Query | null {
  if (!text) return null
  try {
    const q = JSON.parse(text) as Partial<Record<keyof Query, unknown>> | null
    if (!q || typeof q.group !== 'string' || typeof q.name !== 'string' || !isOperator(q.op)) return null
    return { group: q.group, name: q.name, op: q.op, value: typeof q.value === 'string' ? q.value : '' }
  } catch {
    return null
  }
}
