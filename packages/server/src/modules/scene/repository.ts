// SQL of the scene module: the scene tree's node IDs and the per-node attributes.
import type { Executor } from '../../platform/db/index.ts'

// Keeps every statement well below the bind-parameter limits of both dialects.
const CHUNK = 200

function chunks<T>(items: readonly T[]): T[][] {
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

export interface SceneNodeRow {
  node_id: string
  parent_id: string | null
  name: string
  position: number
}

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

/** Attribute rows of the file, or only of the given nodes. */
export async function listAttributes(db: Executor, fileId: string, nodeIds?: readonly string[]) {
  const base = db
    .selectFrom('scene_attributes')
    .select(['node_id', 'name', 'value'])
    .where('file_id', '=', fileId)
    .orderBy('node_id')
    .orderBy('name')
  if (nodeIds === undefined) return base.execute()
  const rows = []
  for (const part of chunks(nodeIds)) rows.push(...(await base.where('node_id', 'in', part).execute()))
  return rows
}

export function listSceneNodes(db: Executor, fileId: string): Promise<SceneNodeRow[]> {
  return db
    .selectFrom('scene_nodes')
    .select(['node_id', 'parent_id', 'name', 'position'])
    .where('file_id', '=', fileId)
    .orderBy('position')
    .execute()
}
