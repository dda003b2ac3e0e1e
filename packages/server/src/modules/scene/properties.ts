// Model properties (docs/api.md, "Model properties"): what the model file says about each node
// (IFC property sets, quantities, materials; glTF extras; mesh and material names), read at
// conversion and stored with the scene tree, replaced with it, never written through the API.
// Apart from the user's scene attributes: a write to /scene/attributes never touches them.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { AppContext } from '../../platform/context.ts'
import type { Db, Executor } from '../../platform/db/index.ts'
import { requireFileAccess } from '../files/index.ts'
import { decodeNodeCursor, encodeNodeCursor } from './pages.ts'
import type { PropertySet } from './property-rows.ts'
import * as rows from './property-rows.ts'
import { afterPropertiesWritten, insertPropertyRows } from './property-writers.ts'
import { type Caller, refuseUnknownNodes } from './service.ts'

type PropertyScalar = string | number | boolean
type PropertyGroups = Record<string, Record<string, PropertyScalar>>

/** One node's properties as the conversion hands them over. */
export interface NodePropertiesInput {
  nodeId: string
  groups: PropertyGroups
  units: Record<string, Record<string, string>>
}

/** How many characters of a value searches see (the indexed `text` column). */
const SEARCHED_CHARS = 256
/** Rows kept in memory before they are written. */
const ROWS_PER_FLUSH = 10_000

/**
 * A generation is one conversion run's properties: revision × 100 + attempt, so two runs of one
 * revision (a worker taking over a job whose lease ran out while the first still runs) never write
 * into each other's rows, and a newer revision's generation is always higher.
 */
export function propertyGeneration(revision: number, attempt: number): number {
  return revision * 100 + Math.min(attempt, 99)
}

/**
 * Writes a generation's properties (the conversion calls this before the transaction that stores
 * the scene tree; nothing reads them until publishSceneProperties): first whatever a crash of the
 * same run left, then `entries`, in short transactions of their own. Answers the counts to publish.
 */
export async function stageSceneProperties(
  db: Db,
  set: PropertySet,
  entries: AsyncIterable<NodePropertiesInput>,
): Promise<PropertyCounts> {
  await pruneSceneProperties(db.kysely, set.fileId, { from: set.generation, below: set.generation + 1 })
  const keys = new Map<string, rows.PropertyKey>()
  let pending: rows.PropertyRow[] = []
  let nodes = 0
  let properties = 0
  for await (const entry of entries) {
    nodes++
    for (const [grp, values] of Object.entries(entry.groups)) {
      for (const [name, value] of Object.entries(values)) {
        const key = keyOf(keys, grp, name, unitOf(entry.units, grp, name))
        pending.push({ node_id: entry.nodeId, key_id: key, ...searchable(value) })
      }
    }
    if (pending.length >= ROWS_PER_FLUSH) {
      properties += pending.length
      await insertPropertyRows(db, set, pending)
      pending = []
    }
  }
  properties += pending.length
  await insertPropertyRows(db, set, pending)
  await rows.insertPropertyKeys(db.kysely, set, [...keys.values()])
  await afterPropertiesWritten(db, properties)
  return { nodes, properties }
}

export interface PropertyCounts {
  nodes: number
  properties: number
}

/** Makes the staged generation the one the file answers (in the transaction that stores its tree). */
export async function publishSceneProperties(tx: Executor, set: PropertySet, counts: PropertyCounts) {
  await rows.publish(tx, set, counts)
}

/** Generations `from` (inclusive) to `below` (exclusive). */
export interface GenerationRange {
  from: number
  below: number
}

/**
 * Deletes the rows of the generations in `range`, newest first, a few hundred nodes per statement
 * so that no statement holds SQLite's writers for long.
 */
export async function pruneSceneProperties(
  db: Executor,
  fileId: string,
  range: GenerationRange,
): Promise<void> {
  for (;;) {
    const generation = await rows.generationIn(db, fileId, range)
    if (generation === undefined) break
    const set = { fileId, generation }
    for (;;) {
      const nodeIds = await rows.nodesWithProperties(db, set, undefined, rows.NODES_PER_READ)
      if (nodeIds.length === 0) break
      await rows.deleteNodes(db, set, nodeIds)
      await nextTurn()
    }
  }
  await rows.deleteKeys(db, fileId, range)
}

/** The unit of one property, read as own properties only: names like `__proto__` come from models. */
function unitOf(units: NodePropertiesInput['units'], grp: string, name: string): string | null {
  const group = Object.hasOwn(units, grp) ? units[grp] : undefined
  const unit = group && Object.hasOwn(group, name) ? group[name] : undefined
  return typeof unit === 'string' ? unit : null
}

function keyOf(keys: Map<string, rows.PropertyKey>, grp: string, name: string, unit: string | null): number {
  const id = JSON.stringify([grp, name, unit])
  let key = keys.get(id)
  if (!key) {
    key = { key_id: keys.size + 1, grp, name, unit }
    keys.set(id, key)
  }
  return key.key_id
}

function searchable(value: PropertyScalar): { value: string; text: string; num: number | null } {
  return {
    value: JSON.stringify(value),
    text: searchedText(String(value)),
    num: typeof value === 'number' ? value : null,
  }
}

/** What a stored value's `text` holds, and what a text condition is compared in. */
export function searchedText(text: string): string {
  return [...text.toLowerCase()].slice(0, SEARCHED_CHARS).join('')
}

export interface PropertiesPage {
  nodeIdToProperties: Record<string, PropertyGroups>
  units: Record<string, Record<string, string>>
  /** null on the last page (and when nodes were named). */
  nextCursor: string | null
}

/**
 * The properties of the nodes named (each answered, `{}` for one without properties), or else a
 * page of the nodes that have properties, in node ID order: at most `limit` nodes, ending at the
 * first node past TESSERA_SCENE_PAGE_MAX_BYTES.
 */
export async function readProperties(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
  query: { nodes?: readonly string[]; limit?: number; cursor?: string },
): Promise<PropertiesPage> {
  const db = ctx.db.kysely
  await requireFileAccess(db, caller.accountId, fileId, 'read')
  const afterNodeId = query.cursor === undefined ? undefined : decodeNodeCursor(query.cursor)
  if (query.nodes) await refuseUnknownNodes(db, fileId, query.nodes)
  const set = await rows.publishedRevision(db, fileId)
  if (query.nodes) {
    const named = set
      ? await readNodes(db, set, query.nodes, Number.POSITIVE_INFINITY)
      : { nodeIdToProperties: Object.fromEntries(query.nodes.map((id) => [id, {}])), units: {} }
    return { nodeIdToProperties: named.nodeIdToProperties, units: named.units, nextCursor: null }
  }
  if (!set) return { nodeIdToProperties: {}, units: {}, nextCursor: null }
  const maxNodes = Math.min(query.limit ?? ctx.config.scenePageMaxNodes, ctx.config.scenePageMaxNodes)
  const nodeIds = await rows.nodesWithProperties(db, set, afterNodeId, maxNodes + 1)
  const page = await readNodes(db, set, nodeIds.slice(0, maxNodes), ctx.config.scenePageMaxBytes)
  // Cut short by bytes, or one node more than the page holds was found.
  const more = page.lastNodeId !== nodeIds.at(-1)
  return {
    nodeIdToProperties: page.nodeIdToProperties,
    units: page.units,
    nextCursor: more && page.lastNodeId !== undefined ? encodeNodeCursor(page.lastNodeId) : null,
  }
}

/** Reads the nodes in order, stopping after the first node that brings the JSON past `maxBytes`. */
async function readNodes(db: Executor, set: PropertySet, nodeIds: readonly string[], maxBytes: number) {
  const keys = new Map((await rows.propertyKeys(db, set)).map((key) => [key.key_id, key]))
  const nodeIdToProperties: Record<string, PropertyGroups> = {}
  const units: Record<string, Record<string, string>> = {}
  let bytes = 0
  let lastNodeId: string | undefined
  for (let i = 0; i < nodeIds.length && bytes < maxBytes; i += rows.NODES_PER_READ) {
    if (i > 0) await nextTurn()
    const part = nodeIds.slice(i, i + rows.NODES_PER_READ)
    const found = groupByNode(await rows.propertiesOfNodes(db, set, part))
    for (const nodeId of part) {
      const groups: PropertyGroups = {}
      for (const row of found.get(nodeId) ?? []) {
        const key = keys.get(row.key_id)
        if (!key) continue
        setOwn(ownRecord(groups, key.grp), key.name, JSON.parse(row.value) as PropertyScalar)
        if (key.unit !== null) setOwn(ownRecord(units, key.grp), key.name, key.unit)
        bytes += row.value.length + key.grp.length + key.name.length
      }
      setOwn(nodeIdToProperties, nodeId, groups)
      lastNodeId = nodeId
      if (bytes >= maxBytes) break
    }
  }
  return { nodeIdToProperties, units, lastNodeId }
}

function groupByNode<T extends { node_id: string }>(list: readonly T[]): Map<string, T[]> {
  const byNode = new Map<string, T[]>()
  for (const row of list) {
    const held = byNode.get(row.node_id)
    if (held) held.push(row)
    else byNode.set(row.node_id, [row])
  }
  return byNode
}

/** Names come from models: `__proto__` is defined as an own property like any other name. */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function ownRecord<T>(target: Record<string, Record<string, T>>, key: string): Record<string, T> {
  if (!Object.hasOwn(target, key)) setOwn(target, key, {})
  return target[key] as Record<string, T>
}
