// SQL of the model properties (properties.ts): the published generation of each file, the per-generation
// key dictionary, the property rows, and the searches over them. Every statement starts at the file
// and the generation, so each uses an index that does.
import { type SelectQueryBuilder, sql } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type { Database } from '../../platform/db/schema.ts'

/** Keys per insert: 6 binds each, well under SQLite's 32,766 and PostgreSQL's 65,535 binds. */
const KEYS_PER_INSERT = 1_000
/** Nodes per read or delete: their IDs are binds. */
export const NODES_PER_READ = 200

/** One generation of one file's properties. */
export interface PropertySet {
  fileId: string
  generation: number
}

export interface PropertyKey {
  key_id: number
  grp: string
  name: string
  unit: string | null
}

export interface PropertyRow {
  node_id: string
  key_id: number
  value: string
  text: string
  num: number | null
}

/** The generation whose properties the file answers; undefined when it has none. */
export async function publishedRevision(db: Executor, fileId: string): Promise<PropertySet | undefined> {
  const row = await db
    .selectFrom('scene_property_sets')
    .select('generation')
    .where('file_id', '=', fileId)
    .executeTakeFirst()
  return row ? { fileId, generation: row.generation } : undefined
}

export async function publish(db: Executor, set: PropertySet, counts: { nodes: number; properties: number }) {
  await db
    .insertInto('scene_property_sets')
    .values({ file_id: set.fileId, generation: set.generation, ...counts })
    .onConflict((oc) =>
      oc.column('file_id').doUpdateSet((eb) => ({
        generation: eb.ref('excluded.generation'),
        nodes: eb.ref('excluded.nodes'),
        properties: eb.ref('excluded.properties'),
      })),
    )
    .execute()
}

/** The newest generation in [from, below) that still has property rows; undefined when none. */
export async function generationIn(
  db: Executor,
  fileId: string,
  range: { from: number; below: number },
): Promise<number | undefined> {
  const row = await db
    .selectFrom('scene_properties')
    .select('generation')
    .where('file_id', '=', fileId)
    .where('generation', '>=', range.from)
    .where('generation', '<', range.below)
    .orderBy('generation', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row?.generation
}

export async function deleteNodes(db: Executor, set: PropertySet, nodeIds: readonly string[]): Promise<void> {
  await db
    .deleteFrom('scene_properties')
    .where('file_id', '=', set.fileId)
    .where('generation', '=', set.generation)
    .where('node_id', 'in', nodeIds)
    .execute()
}

/** Deletes the key dictionaries of the generations in [from, below). */
export async function deleteKeys(db: Executor, fileId: string, range: { from: number; below: number }) {
  await db
    .deleteFrom('scene_property_keys')
    .where('file_id', '=', fileId)
    .where('generation', '>=', range.from)
    .where('generation', '<', range.below)
    .execute()
}

export async function insertPropertyKeys(db: Executor, set: PropertySet, keys: readonly PropertyKey[]) {
  for (let i = 0; i < keys.length; i += KEYS_PER_INSERT) {
    const part = keys.slice(i, i + KEYS_PER_INSERT)
    await db
      .insertInto('scene_property_keys')
      .values(part.map((key) => ({ file_id: set.fileId, generation: set.generation, ...key })))
      .execute()
  }
}

/** The generation's whole key dictionary (a few hundred rows for a building). */
export function propertyKeys(db: Executor, set: PropertySet): Promise<PropertyKey[]> {
  return db
    .selectFrom('scene_property_keys')
    .select(['key_id', 'grp', 'name', 'unit'])
    .where('file_id', '=', set.fileId)
    .where('generation', '=', set.generation)
    .execute()
}

/** The keys a condition names: one per unit the (group, name) came with (usually one). */
export async function keyIdsOf(db: Executor, set: PropertySet, grp: string, name: string): Promise<number[]> {
  const rows = await db
    .selectFrom('scene_property_keys')
    .select('key_id')
    .where('file_id', '=', set.fileId)
    .where('generation', '=', set.generation)
    .where('grp', '=', grp)
    .where('name', '=', name)
    .execute()
  return rows.map((row) => row.key_id)
}

/** Up to `limit` IDs of nodes with properties, in node ID order, after `afterNodeId`. */
export async function nodesWithProperties(
  db: Executor,
  set: PropertySet,
  afterNodeId: string | undefined,
  limit: number,
): Promise<string[]> {
  let query = db
    .selectFrom('scene_properties')
    .select('node_id')
    .distinct()
    .where('file_id', '=', set.fileId)
    .where('generation', '=', set.generation)
  if (afterNodeId !== undefined) query = query.where('node_id', '>', afterNodeId)
  const rows = await query.orderBy('node_id').limit(limit).execute()
  return rows.map((row) => row.node_id)
}

/** The property rows of at most NODES_PER_READ nodes. */
export function propertiesOfNodes(db: Executor, set: PropertySet, nodeIds: readonly string[]) {
  if (nodeIds.length > NODES_PER_READ) throw new Error(`propertiesOfNodes: ${nodeIds.length} nodes`)
  return db
    .selectFrom('scene_properties')
    .select(['node_id', 'key_id', 'value'])
    .where('file_id', '=', set.fileId)
    .where('generation', '=', set.generation)
    .where('node_id', 'in', nodeIds)
    .orderBy('node_id')
    .orderBy('key_id')
    .execute()
}

/** The rows of the generation's properties with keys `keyIds` (search.ts adds a condition's test). */
export function propertyMatches(db: Executor, set: PropertySet, keyIds: readonly number[]) {
  return db
    .selectFrom('scene_properties')
    .select('node_id')
    .where('file_id', '=', set.fileId)
    .where('generation', '=', set.generation)
    .where('key_id', 'in', keyIds)
}

/** A set of node IDs a condition selects (search.ts builds them; they are intersected). */
export type NodeSet = SelectQueryBuilder<Database, 'scene_properties' | 'scene_nodes', { node_id: string }>

/** The page of matches after `afterNodeId`, one row past `limit` (to know whether more follow). */
export async function searchPage(
  db: Executor,
  sets: readonly NodeSet[],
  page: { afterNodeId: string | undefined; limit: number },
): Promise<string[]> {
  const after = (set: NodeSet) =>
    page.afterNodeId === undefined ? set : set.where('node_id', '>', page.afterNodeId)
  const [first, ...rest] = sets.map(after)
  if (!first) return []
  const matches = rest.reduce((all, set) => all.intersect(set), first)
  const rows = await db
    .selectFrom(matches.as('m'))
    .select('m.node_id')
    .orderBy('m.node_id')
    .limit(page.limit + 1)
    .execute()
  return rows.map((row) => row.node_id)
}

/** How many nodes match, over every page. */
export async function countMatches(db: Executor, sets: readonly NodeSet[]): Promise<number> {
  const [first, ...rest] = sets
  if (!first) return 0
  const matches = rest.reduce((all, set) => all.intersect(set), first)
  const row = await db
    .selectFrom(matches.as('m'))
    .select(sql<number>`count(*)`.as('total'))
    .executeTakeFirstOrThrow()
  return Number(row.total)
}

/** A set of (file, node) pairs a condition selects across files (file-search.ts). */
export type FileNodeSet = SelectQueryBuilder<
  Database,
  'scene_properties' | 'scene_nodes',
  { file_id: string; node_id: string }
>

/** Where property (grp, name) is in files' published generations: the generation and key IDs. */
export type KeysByFile = Map<string, { generation: number; keyIds: number[] }>

/**
 * The published generation's keys of property (grp, name) in each of `fileIds` that has it, in one
 * statement: the published sets, then the key dictionary's (file, generation, group, name) index.
 */
export async function publishedKeysIn(
  db: Executor,
  fileIds: readonly string[],
  grp: string,
  name: string,
): Promise<KeysByFile> {
  const rows = await db
    .selectFrom('scene_property_sets')
    .innerJoin('scene_property_keys', (join) =>
      join
        .onRef('scene_property_keys.file_id', '=', 'scene_property_sets.file_id')
        .onRef('scene_property_keys.generation', '=', 'scene_property_sets.generation'),
    )
    .select(['scene_property_sets.file_id', 'scene_property_sets.generation', 'scene_property_keys.key_id'])
    .where('scene_property_sets.file_id', 'in', fileIds)
    .where('scene_property_keys.grp', '=', grp)
    .where('scene_property_keys.name', '=', name)
    .execute()
  const keys: KeysByFile = new Map()
  for (const row of rows) {
    const entry = keys.get(row.file_id) ?? { generation: row.generation, keyIds: [] }
    entry.keyIds.push(row.key_id)
    keys.set(row.file_id, entry)
  }
  return keys
}

/**
 * The property rows of those keys, across files: one (file, generation, key) range of the properties'
 * indexes per file, joined by OR. The keys are read first (publishedKeysIn) because one statement
 * joining the key dictionary to the properties was slow on SQLite: 829 ms for a property no file
 * has over 200 files, against 17 ms this way (bench:properties --across).
 */
export function propertyRowsOf(db: Executor, keys: KeysByFile) {
  return db
    .selectFrom('scene_properties')
    .select(['file_id', 'node_id'])
    .where((eb) =>
      eb.or(
        [...keys].map(([fileId, key]) =>
          eb.and([
            eb('file_id', '=', fileId),
            eb('generation', '=', key.generation),
            eb('key_id', 'in', key.keyIds),
          ]),
        ),
      ),
    )
}

/** How many nodes of each file are in every set (files without any are left out). */
export async function countMatchesPerFile(
  db: Executor,
  sets: readonly FileNodeSet[],
): Promise<Map<string, number>> {
  const [first, ...rest] = sets
  if (!first) return new Map()
  const matches = rest.reduce((all, set) => all.intersect(set), first)
  const rows = await db
    .selectFrom(matches.as('m'))
    .select(['m.file_id', sql<number>`count(*)`.as('total')])
    .groupBy('m.file_id')
    .execute()
  return new Map(rows.map((row) => [row.file_id, Number(row.total)]))
}
