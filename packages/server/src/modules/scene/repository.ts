// SQL of the scene module: the scene tree's node IDs and the per-node attributes.
import type { Executor } from '../../platform/db/index.ts'
import type { SceneNodesTable } from './tables.ts'

// Keeps every statement well below the bind-parameter limits of both dialects.
const CHUNK = 200

/** `items` in parts of CHUNK: the IN lists of one statement. */
export function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK))
  return out
}

export async function sceneTreeKnown(db: Executor, fileId: string): Promise<boolean> {
  const row = await db
    .selectFrom('scene_nodes')
    .select('node_id')
    .where('file_id', '=', fileId)
    .executeTakeFirst()
  return row !== undefined
}

/** The IDs among `nodeIds` that the file's scene tree contains. */
export async function existingNodeIds(
  db: Executor,
  fileId: string,
  nodeIds: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>()
  for (const part of chunks(nodeIds)) {
    const rows = await db
      .selectFrom('scene_nodes')
      .select('node_id')
      .where('file_id', '=', fileId)
      .where('node_id', 'in', part)
      .execute()
    for (const row of rows) found.add(row.node_id)
  }
  return found
}

export type SceneNodeRow = Omit<SceneNodesTable, 'file_id'>

export async function replaceSceneNodes(
  db: Executor,
  fileId: string,
  nodes: readonly SceneNodeRow[],
): Promise<void> {
  await db.deleteFrom('scene_nodes').where('file_id', '=', fileId).execute()
  for (const part of chunks(nodes)) {
    await db
      .insertInto('scene_nodes')
      .values(part.map((node) => ({ file_id: fileId, ...node })))
      .execute()
  }
}

export interface AttributeWrite {
  node_id: string
  name: string
  /** JSON text. */
  value: string
}

export async function upsertAttributes(
  db: Executor,
  fileId: string,
  writes: readonly AttributeWrite[],
  accountId: string,
  now: number,
): Promise<void> {
  for (const part of chunks(writes)) {
    await db
      .insertInto('scene_attributes')
      .values(part.map((w) => ({ file_id: fileId, ...w, updated_by: accountId, updated_at: now })))
      .onConflict((oc) =>
        oc.columns(['file_id', 'node_id', 'name']).doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          updated_by: eb.ref('excluded.updated_by'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute()
  }
}

export async function deleteAttributes(
  db: Executor,
  fileId: string,
  removals: readonly { node_id: string; name: string }[],
): Promise<void> {
  for (const part of chunks(removals)) {
    await db
      .deleteFrom('scene_attributes')
      .where('file_id', '=', fileId)
      .where((eb) => eb.or(part.map((r) => eb.and([eb('node_id', '=', r.node_id), eb('name', '=', r.name)]))))
      .execute()
  }
}

/** Attribute rows of the given nodes (at most CHUNK of them: callers page through longer lists). */
export function listNodeAttributes(db: Executor, fileId: string, nodeIds: readonly string[]) {
  if (nodeIds.length > CHUNK) throw new Error(`listNodeAttributes: ${nodeIds.length} nodes, at most ${CHUNK}`)
  return db
    .selectFrom('scene_attributes')
    .select(['node_id', 'name', 'value'])
    .where('file_id', '=', fileId)
    .where('node_id', 'in', nodeIds)
    .orderBy('node_id')
    .orderBy('name')
    .execute()
}

export const NODES_PER_QUERY = CHUNK

/** Up to `limit` attribute rows of the file after the row `after` (or after every row of node `after.node_id`). */
export function attributeRowsAfter(
  db: Executor,
  fileId: string,
  after: { node_id: string; name?: string } | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('scene_attributes')
    .select(['node_id', 'name', 'value'])
    .where('file_id', '=', fileId)
  if (after?.name !== undefined) {
    const { node_id, name } = after
    // A row-value comparison, not `a > x or (a = x and b > y)`: both dialects seek the primary key with it.
    query = query.where((eb) => eb(eb.refTuple('node_id', 'name'), '>', eb.tuple(node_id, name)))
  } else if (after) query = query.where('node_id', '>', after.node_id)
  return query.orderBy('node_id').orderBy('name').limit(limit).execute()
}

/**
 * The file's attribute totals, its row locked until the transaction ends (PostgreSQL: the upsert
 * takes the row lock; SQLite: write transactions run one at a time), so concurrent writes to one
 * file check their caps one after another.
 */
export async function lockAttributeTotals(db: Executor, fileId: string) {
  return db
    .insertInto('scene_attribute_totals')
    .values({ file_id: fileId, attributes: 0, bytes: 0 })
    .onConflict((oc) =>
      oc.column('file_id').doUpdateSet((eb) => ({ attributes: eb.ref('scene_attribute_totals.attributes') })),
    )
    .returning(['attributes', 'bytes'])
    .executeTakeFirstOrThrow()
}

export async function addToAttributeTotals(
  db: Executor,
  fileId: string,
  delta: { attributes: number; bytes: number },
): Promise<void> {
  await db
    .updateTable('scene_attribute_totals')
    .set((eb) => ({
      attributes: eb('attributes', '+', delta.attributes),
      bytes: eb('bytes', '+', delta.bytes),
    }))
    .where('file_id', '=', fileId)
    .execute()
}

export function listSceneNodes(db: Executor, fileId: string): Promise<SceneNodeRow[]> {
  return db
    .selectFrom('scene_nodes')
    .select(['node_id', 'parent_id', 'name', 'position'])
    .where('file_id', '=', fileId)
    .orderBy('position')
    .execute()
}
