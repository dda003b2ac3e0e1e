// The conditions of a search (docs/api.md, "Search"), as SQL tests shared by the search in one file
// (search.ts) and across files (file-search.ts): a property's value test on the `text` and `num`
// columns of scene_properties, and a node name's test on scene_nodes.
import { type RawBuilder, sql } from 'kysely'
import { AppError } from '../../platform/errors.ts'
import { searchedText } from './properties.ts'

type Op = 'eq' | 'ne' | 'contains' | 'lt' | 'lte' | 'gt' | 'gte' | 'exists'
type Value = string | number | boolean

export type PropertyCondition = { group: string; name: string; op: Op; value?: Value }
export type NameCondition = { node: 'name'; op: 'eq' | 'ne' | 'contains'; value: string }
export type Condition = PropertyCondition | NameCondition

const COMPARISONS = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const

/** Refuses a condition that cannot be asked, whether or not a file has the property. */
export function checkConditions(where: readonly Condition[]): void {
  for (const condition of where) if (!('node' in condition)) checkCondition(condition)
}

function checkCondition({ op, value }: PropertyCondition): void {
  if (op === 'exists' && value !== undefined) throw invalid('`exists` takes no value')
  if (op !== 'exists' && value === undefined) throw invalid(`\`${op}\` needs a value`)
  if (op in COMPARISONS && typeof value !== 'number') {
    throw invalid(`\`${op}\` compares numbers: give a number as value`)
  }
}

/**
 * The test of a property condition's value on a property row whose columns `text` and `num` are
 * named by `column` (qualified when the row is joined); null for `exists`, which every row passes.
 */
export function valueTest(
  { op, value }: PropertyCondition,
  column: (name: 'text' | 'num') => string,
): RawBuilder<boolean> | null {
  if (op === 'exists' || value === undefined) return null
  const text = sql.ref(column('text'))
  const num = sql.ref(column('num'))
  if (op === 'contains') return sql<boolean>`${text} like ${likePattern(String(value))} escape '\\'`
  if (op === 'eq' || op === 'ne') {
    const compare = sql.raw(op === 'eq' ? '=' : '<>')
    return typeof value === 'number'
      ? sql<boolean>`${num} ${compare} ${value}`
      : sql<boolean>`${text} ${compare} ${searchedText(String(value))}`
  }
  return sql<boolean>`${num} ${sql.raw(COMPARISONS[op])} ${Number(value)}`
}

/**
 * A node name's test on scene_nodes' `name`. Names compare in lower case: SQLite's lower() folds ASCII
 * letters only, PostgreSQL's every letter, so names beyond ASCII match their exact case on SQLite.
 */
export function nameTest(condition: NameCondition): RawBuilder<boolean> {
  const name = sql`lower(name)`
  const value = condition.value.toLowerCase()
  if (condition.op === 'contains') return sql<boolean>`${name} like ${likePattern(value)} escape '\\'`
  return sql<boolean>`${name} ${sql.raw(condition.op === 'eq' ? '=' : '<>')} ${value}`
}

/** `%…%` around the text, its own `%`, `_` and `\` escaped; lowercased as stored text is. */
function likePattern(text: string): string {
  return `%${searchedText(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

function invalid(detail: string): AppError {
  return new AppError('VALIDATION_FAILED', `Search condition: ${detail}.`)
}
