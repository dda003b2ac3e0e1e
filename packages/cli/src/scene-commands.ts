// `tessera props FILE [NODE…]`, `tessera search FILE EXPR…` and `tessera find EXPR…`: the model's own
// properties (IFC property sets, glTF extras, …; docs/api.md, "Model properties") and searches of
// them, in one file or across the files you may read. Their routes
// need a session, so each run takes one license for its duration (withSession), as `ls` does.
import type { FileMatch, SceneNode, SceneProperties, SearchCondition, Tessera } from '@tessera/client'
import { ClientUsageError, parse, resolveUrl, withSession } from './credentials.ts'

function out(line: string): void {
  process.stdout.write(`${line}\n`)
}

/** --json, and --keep-session as on the other commands that open a session. */
const OPTIONS = { json: { type: 'boolean' }, 'keep-session': { type: 'boolean' } } as const

/** Node ID → name, from the scene tree (one call): the names printed beside node IDs. */
async function nodeNames(tessera: Tessera, fileId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>()
  const walk = (nodes: SceneNode[]): void => {
    for (const node of nodes) {
      if (!names.has(node.id)) names.set(node.id, node.name)
      walk(node.children)
    }
  }
  walk(await tessera.files.sceneTree(fileId))
  return names
}

export async function props(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, OPTIONS)
  const [fileId, ...nodes] = positionals
  if (!fileId) throw new ClientUsageError('props needs a file ID (and, if you like, node IDs)')
  await withSession(
    resolveUrl(values.url),
    async (tessera) => {
      const found = await tessera.files.properties(fileId, nodes.length > 0 ? nodes : undefined)
      if (values.json) return out(JSON.stringify(found, null, 2))
      const names = await nodeNames(tessera, fileId)
      const order = nodes.length > 0 ? [...new Set(nodes)] : Object.keys(found.nodeIdToProperties).sort()
      for (const line of propertyLines(found, order, names)) out(line)
    },
    { keepSession: values['keep-session'] === true },
  )
}

/** Each node (its ID and name), then each group and under it `name: value unit`. */
function propertyLines(found: SceneProperties, order: string[], names: Map<string, string>): string[] {
  const lines: string[] = []
  for (const id of order) {
    const name = names.get(id)
    lines.push(name === undefined ? id : `${id}  ${name}`)
    const groups = Object.entries(found.nodeIdToProperties[id] ?? {})
    if (groups.length === 0) lines.push('  (no properties)')
    for (const [group, properties] of groups) {
      lines.push(`  ${group}`)
      const units = Object.hasOwn(found.units, group) ? found.units[group] : undefined
      for (const [property, value] of Object.entries(properties)) {
        const unit = units && Object.hasOwn(units, property) ? ` ${units[property]}` : ''
        lines.push(`    ${property}: ${String(value)}${unit}`)
      }
    }
  }
  return lines
}

export async function search(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, OPTIONS)
  const [fileId, ...expressions] = positionals
  if (!fileId || expressions.length === 0)
    throw new ClientUsageError('search needs a file ID and at least one expression')
  const where = expressions.map(parseCondition)
  await withSession(
    resolveUrl(values.url),
    async (tessera) => {
      const names = values.json ? new Map<string, string>() : await nodeNames(tessera, fileId)
      const nodes: string[] = []
      let total = 0
      let cursor: string | undefined
      do {
        const page = await tessera.files.search(fileId, where, { limit: 1000, ...(cursor ? { cursor } : {}) })
        total = page.total
        if (values.json) nodes.push(...page.nodes)
        else for (const id of page.nodes) out(names.has(id) ? `${id}  ${names.get(id)}` : id)
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      if (values.json) return out(JSON.stringify({ nodes, total }, null, 2))
      process.stderr.write(`${total} node${total === 1 ? '' : 's'} match\n`)
    },
    { keepSession: values['keep-session'] === true },
  )
}

/** `tessera find EXPR…`: the files you may read with nodes matching every EXPR, and how many. */
export async function find(args: string[]): Promise<void> {
  const { values, positionals } = parse(args, OPTIONS)
  if (positionals.length === 0) throw new ClientUsageError('find needs at least one expression')
  const where = positionals.map(parseCondition)
  await withSession(
    resolveUrl(values.url),
    async (tessera) => {
      const files: FileMatch[] = []
      for await (const file of tessera.files.searchFilesAll(where)) {
        files.push(file)
        if (!values.json) out(fileLine(file))
      }
      if (values.json) return out(JSON.stringify({ files }, null, 2))
      const nodes = files.reduce((sum, file) => sum + file.matches, 0)
      const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
      const verb = files.length === 1 ? 'matches' : 'match'
      process.stderr.write(`${count(files.length, 'file')} ${verb} (${count(nodes, 'node')})\n`)
    },
    { keepSession: values['keep-session'] === true },
  )
}

/** `ID  matches  /path/name`, and the role on a file someone else owns. */
function fileLine(file: FileMatch): string {
  const path = `${file.parent === '/' ? '' : file.parent}/${file.name}`
  return `${file.file}  ${file.matches}  ${path}${file.role === 'owner' ? '' : `  (${file.role})`}`
}

type Op = SearchCondition['op']

const OPERATORS: ReadonlyArray<[symbol: string, op: Op]> = [
  ['!=', 'ne'],
  ['<=', 'lte'],
  ['>=', 'gte'],
  ['=', 'eq'],
  ['<', 'lt'],
  ['>', 'gt'],
  ['~', 'contains'],
]
/** What ends a bare name: an operator's first character, or a quote. */
const BARE_END = /[=!<>~"]/
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

/** A bad expression: a usage error (exit 2) saying what was expected. */
function bad(expression: string, why: string): ClientUsageError {
  return new ClientUsageError(`bad expression '${expression}': ${why}`)
}

/**
 * A quoted string at `text[at]` (the opening quote), `\"` and `\\` escaping: its text and the index
 * after the closing quote.
 */
function readQuoted(expression: string, text: string, at: number, what: string): [string, number] {
  let value = ''
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i]
    if (c === '\\' && i + 1 < text.length) value += text[++i]
    else if (c === '"') return [value, i + 1]
    else value += c
  }
  throw bad(expression, `the quote of the ${what} is not closed`)
}

/**
 * One search expression (the grammar is in help.ts and docs/cli.md) as the API's condition:
 *
 *     'Pset_WallCommon.FireRating = REI60'   {group, name, op: 'eq', value: 'REI60'}
 *     'Qto_WallBaseQuantities.Length > 4.5'  {…, op: 'gt', value: 4.5}
 *     '"Pset Name"."Prop.name" exists'       {group: 'Pset Name', name: 'Prop.name', op: 'exists'}
 *     'name ~ Door'                          {node: 'name', op: 'contains', value: 'Door'}
 */
export function parseCondition(expression: string): SearchCondition {
  const text = expression.trim()
  // The group: quoted, or bare up to the first dot. No dot before the operator: `name` or nothing.
  let group: string
  let at: number
  if (text.startsWith('"')) [group, at] = readQuoted(expression, text, 0, 'group')
  else {
    const end = text.search(/[.=!<>~"]/)
    if (end < 0 || text[end] !== '.') {
      const left = text.slice(0, end < 0 ? text.length : end).trim()
      if (left === 'name' && end >= 0) return nameCondition(expression, text.slice(end))
      if (left === 'name' || /^name\s+exists$/.test(left))
        throw bad(expression, 'the node name takes = != or ~')
      throw bad(expression, `expected GROUP.PROPERTY or name before the operator, found '${left}'`)
    }
    group = text.slice(0, end).trim()
    at = end
  }
  if (!group) throw bad(expression, 'the group is empty')
  if (text[at] !== '.') throw bad(expression, `expected '.' after the group "${group}"`)
  at++
  // The property: quoted, or bare up to the operator (dots and spaces are part of it).
  let property: string
  if (text[at] === '"') [property, at] = readQuoted(expression, text, at, 'property')
  else {
    const rest = text.slice(at)
    const end = rest.search(BARE_END)
    if (end >= 0 && rest[end] === '"')
      throw bad(expression, 'a quote inside a bare name: quote the whole name')
    const exists = end < 0 ? /^(.*?)\s+exists$/.exec(rest) : null
    if (exists) {
      property = (exists[1] ?? '').trim()
      at = text.length
      if (!property) throw bad(expression, `the property name after "${group}." is empty`)
      return { group, name: property, op: 'exists' }
    }
    property = (end < 0 ? rest : rest.slice(0, end)).trim()
    at += end < 0 ? rest.length : end
  }
  if (!property) throw bad(expression, `the property name after "${group}." is empty`)
  const rest = text.slice(at).trim()
  if (rest === 'exists') return { group, name: property, op: 'exists' }
  if (/^exists\s/.test(rest)) throw bad(expression, 'exists takes no value')
  const [symbol, op] = OPERATORS.find(([s]) => rest.startsWith(s)) ?? []
  if (!symbol || !op) {
    throw bad(expression, 'expected an operator (= != ~ < <= > >= exists) after the property name')
  }
  const raw = valueText(expression, symbol, rest)
  if (op === 'contains') return { group, name: property, op, value: textValue(expression, raw) }
  const value = typedValue(expression, raw)
  if ((op === 'lt' || op === 'lte' || op === 'gt' || op === 'gte') && typeof value !== 'number') {
    throw bad(expression, `${symbol} needs a number, found '${raw}'`)
  }
  return { group, name: property, op, value }
}

/** `name OP text`: the node's name; = != ~ only, the value always text. */
function nameCondition(expression: string, rest: string): SearchCondition {
  const [symbol, op] = OPERATORS.find(([s]) => rest.startsWith(s)) ?? []
  if (!symbol || (op !== 'eq' && op !== 'ne' && op !== 'contains')) {
    throw bad(expression, 'the node name takes = != or ~')
  }
  const raw = valueText(expression, symbol, rest)
  return { node: 'name', op, value: textValue(expression, raw) }
}

/** What follows the operator `symbol`: there must be something, and a bare value starts with no operator. */
function valueText(expression: string, symbol: string, rest: string): string {
  const raw = rest.slice(symbol.length).trim()
  if (raw === '') throw bad(expression, `${symbol} needs a value`)
  if (/^[=!<>~]/.test(raw)) {
    throw bad(expression, `'${symbol}${raw[0]}' is no operator (quote a value that starts with = ! < > ~)`)
  }
  return raw
}

/** A value as text: quoted, what is between the quotes; bare, as written. */
function textValue(expression: string, raw: string): string {
  if (!raw.startsWith('"')) return raw
  const [value, end] = readQuoted(expression, raw, 0, 'value')
  if (end !== raw.length) throw bad(expression, 'text after the quoted value')
  return value
}

/**
 * A value of = != < <= > >=: quoted, always text (`"60"` stays text); bare, a number when it reads
 * as a finite one, `true`/`false` as booleans, else the text.
 */
function typedValue(expression: string, raw: string): string | number | boolean {
  if (raw.startsWith('"')) return textValue(expression, raw)
  if (NUMBER.test(raw) && Number.isFinite(Number(raw))) return Number(raw)
  if (raw === 'true') return true
  if (raw === 'false') return false
  return raw
}
