// The nodes of a file's scene by their IFC GlobalId (the `IFC` group's `GlobalId` model property),
// and the tree's shape: what a BCF file names components by (modules/bcf). Lists are read in chunks
// (repository.ts) so that no statement carries too many parameters (SQLite's limit is 32,766).
import type { Executor } from '../../platform/db/index.ts'
import { searchedText } from './properties.ts'
import { keyIdsOf, publishedRevision } from './property-rows.ts'
import { chunks } from './repository.ts'

async function globalIdKeys(db: Executor, fileId: string) {
  const set = await publishedRevision(db, fileId)
  if (!set) return null
  const keyIds = await keyIdsOf(db, set, 'IFC', 'GlobalId')
  return keyIds.length === 0 ? null : { set, keyIds }
}

type GlobalIdKeys = NonNullable<Awaited<ReturnType<typeof globalIdKeys>>>

/** The GlobalId rows whose node (or lowercased text) is one of `values`. */
function globalIdRows(db: Executor, keys: GlobalIdKeys, column: 'node_id' | 'text', values: string[]) {
  return db
    .selectFrom('scene_properties')
    .select(['node_id', 'value'])
    .where('file_id', '=', keys.set.fileId)
    .where('generation', '=', keys.set.generation)
    .where('key_id', 'in', keys.keyIds)
    .where(column, 'in', values)
    .execute()
}

const asText = (json: string): string | null => {
  const value: unknown = JSON.parse(json)
  return typeof value === 'string' ? value : null
}

/** node ID → GlobalId, for those of `nodeIds` that have one. */
export async function globalIdsOfNodes(
  db: Executor,
  fileId: string,
  nodeIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  const keys = await globalIdKeys(db, fileId)
  if (!keys) return found
  for (const chunk of chunks([...new Set(nodeIds)])) {
    const rows = await globalIdRows(db, keys, 'node_id', chunk)
    for (const row of rows) {
      const text = asText(row.value)
      if (text !== null) found.set(row.node_id, text)
    }
  }
  return found
}

/** GlobalId → node ID, for those of `globalIds` the file's model has (compared exactly). */
export async function nodesOfGlobalIds(
  db: Executor,
  fileId: string,
  globalIds: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  const keys = await globalIdKeys(db, fileId)
  if (!keys) return found
  const wanted = new Set(globalIds)
  // The search column is lowercased; the exact (case-sensitive) GlobalId is checked on the value.
  for (const chunk of chunks([...new Set(globalIds.map(searchedText))])) {
    const rows = await globalIdRows(db, keys, 'text', chunk)
    for (const row of rows) {
      const text = asText(row.value)
      if (text !== null && wanted.has(text) && !found.has(text)) found.set(text, row.node_id)
    }
  }
  return found
}

/** The file's scene tree as node ID → parent node ID (null for a root). */
export async function sceneParents(db: Executor, fileId: string): Promise<Map<string, string | null>> {
  const rows = await db
    .selectFrom('scene_nodes')
    .select(['node_id', 'parent_id'])
    .where('file_id', '=', fileId)
    .execute()
  return new Map(rows.map((row) => [row.node_id, row.parent_id]))
}

/**
 * How far the conversion moved an IFC model towards the origin (the `IFC` group's `originShift.x/y/z`
 * on its project node, in IFC's Z-up metres), or null when it was not moved.
 */
export async function modelOriginShift(
  db: Executor,
  fileId: string,
): Promise<[number, number, number] | null> {
  const set = await publishedRevision(db, fileId)
  if (!set) return null
  const shift: number[] = []
  for (const axis of ['x', 'y', 'z']) {
    const keyIds = await keyIdsOf(db, set, 'IFC', `originShift.${axis}`)
    const row = keyIds.length
      ? await db
          .selectFrom('scene_properties')
          .select('num')
          .where('file_id', '=', fileId)
          .where('generation', '=', set.generation)
          .where('key_id', 'in', keyIds)
          .where('num', 'is not', null)
          .limit(1)
          .executeTakeFirst()
      : undefined
    if (row?.num === undefined || row.num === null) return null
    shift.push(Number(row.num))
  }
  return shift as [number, number, number]
}
