// Scene attributes: free-form values attached to the nodes of a file's scene tree. A write merges
// (a null value removes that attribute, other attributes of the node stay) and emits
// attribute_updated with exactly what was written, in the same transaction.
//
// Node IDs: once the file's scene tree is known (the conversion stores it with replaceSceneTree),
// writes naming a node outside it are refused with 400 UNKNOWN_NODE. Until then (no tree yet: not
// converted, or converted before trees were stored) any node ID is accepted, so clients can
// annotate a model while it converts.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { emitEvent } from '../../events/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { Executor } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { fileReaderIds, requireFileAccess } from '../files/index.ts'
import { attributeEventData } from './event-data.ts'
import { WritePlanner } from './limits.ts'
import { type AttributesPage, decodeNodeCursor, readAttributePage } from './pages.ts'
import { checkAttributeQuota } from './quota.ts'
import * as repo from './repository.ts'

export type NodeIdToAttributes = Record<string, Record<string, unknown>>

export interface Caller {
  accountId: string
  email: string
}

/** Rows → node ID → attribute name → value, nodes in the order asked. */
function toMap(rows: { node_id: string; name: string; value: string }[], nodeIds: readonly string[]) {
  const byNode = new Map<string, [string, unknown][]>()
  for (const id of nodeIds) byNode.set(id, [])
  for (const row of rows) {
    const list = byNode.get(row.node_id) ?? []
    list.push([row.name, JSON.parse(row.value) as unknown])
    byNode.set(row.node_id, list)
  }
  // Object.fromEntries defines own properties, so no node or attribute name can touch a prototype.
  return Object.fromEntries(
    [...byNode.keys()].map((id) => [id, Object.fromEntries(byNode.get(id) ?? [])]),
  ) as NodeIdToAttributes
}

const UNKNOWN_SHOWN = 10

export async function writeAttributes(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
  written: NodeIdToAttributes,
): Promise<NodeIdToAttributes> {
  const nodeIds = Object.keys(written)
  return ctx.db.kysely.transaction().execute(async (tx) => {
    const { file } = await requireFileAccess(tx, caller.accountId, fileId, 'write')
    await refuseUnknownNodes(tx, fileId, nodeIds)
    const plan = new WritePlanner(ctx.config, written)
    // Read before the file's totals are locked: concurrent writers to the file wait for that lock,
    // so every round trip after it (and every event-loop turn) is time they all wait.
    const readerAccountIds = await fileReaderIds(tx, fileId)
    const totals = await repo.lockAttributeTotals(tx, fileId)
    const stored: repo.AttributeWrite[] = []
    for (const [index, part] of nodeParts(nodeIds).entries()) {
      if (index > 0) await nextTurn() // a big write yields between its parts
      const rows = await repo.listNodeAttributes(tx, fileId, part)
      plan.addNodes(part, rows)
      stored.push(...rows)
    }
    plan.checkFile(totals)
    await checkAttributeQuota(ctx, tx, file.owner_id, plan.bytesDelta)
    const now = Date.now()
    // Each statement is a round trip on PostgreSQL: none is sent that has nothing to do.
    await repo.upsertAttributes(tx, fileId, plan.upserts, caller.accountId, now)
    await repo.deleteAttributes(tx, fileId, plan.removals)
    if (plan.attributesDelta !== 0 || plan.bytesDelta !== 0) {
      await repo.addToAttributeTotals(tx, fileId, {
        attributes: plan.attributesDelta,
        bytes: plan.bytesDelta,
      })
    }
    await emitEvent(ctx, tx, {
      event: 'attribute_updated',
      fileId,
      fileOwnerId: file.owner_id,
      readerAccountIds,
      data: attributeEventData(caller.email, written, ctx.config.eventMaxDataBytes),
      runTimestamp: now,
    })
    // The rows read under the totals' lock plus this write are what is stored now: no re-read.
    return toMap(rowsAfterWrite(stored, plan), nodeIds)
  })
}

/**
 * 400 UNKNOWN_NODE for node IDs outside the file's scene tree, once one is stored. The tree is known
 * when any of the IDs is in it, so the second query runs only for a write naming unknown IDs.
 */
export async function refuseUnknownNodes(
  tx: Executor,
  fileId: string,
  nodeIds: readonly string[],
): Promise<void> {
  const known = await repo.existingNodeIds(tx, fileId, nodeIds)
  const unknown = nodeIds.filter((id) => !known.has(id))
  if (unknown.length === 0 || (known.size === 0 && !(await repo.sceneTreeKnown(tx, fileId)))) return
  const shown = unknown.slice(0, UNKNOWN_SHOWN).map((id) => JSON.stringify(id))
  const more = unknown.length > UNKNOWN_SHOWN ? ` and ${unknown.length - UNKNOWN_SHOWN} more` : ''
  throw new AppError('UNKNOWN_NODE', `No node ${shown.join(', ')}${more} in the scene tree of this file.`)
}

/** The attribute rows of the written nodes once `plan` is stored over `stored`, by node and name. */
function rowsAfterWrite(stored: readonly repo.AttributeWrite[], plan: WritePlanner): repo.AttributeWrite[] {
  const rows = new Map<string, repo.AttributeWrite>()
  const keyOf = (row: { node_id: string; name: string }) => JSON.stringify([row.node_id, row.name])
  for (const row of stored) rows.set(keyOf(row), row)
  for (const row of plan.upserts) rows.set(keyOf(row), row)
  for (const row of plan.removals) rows.delete(keyOf(row))
  return [...rows.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

function nodeParts(nodeIds: readonly string[]): string[][] {
  const parts: string[][] = []
  for (let i = 0; i < nodeIds.length; i += repo.NODES_PER_QUERY)
    parts.push(nodeIds.slice(i, i + repo.NODES_PER_QUERY))
  return parts
}

/**
 * One page of the file's attributes (see pages.ts), after the node of `cursor` if given. `limit` is
 * capped at TESSERA_SCENE_PAGE_MAX_NODES, which is also the page size without it.
 */
export async function readAttributes(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
  paging: { limit?: number; cursor?: string } = {},
): Promise<AttributesPage> {
  const db = ctx.db.kysely
  await requireFileAccess(db, caller.accountId, fileId, 'read')
  const afterNodeId = paging.cursor === undefined ? undefined : decodeNodeCursor(paging.cursor)
  const maxNodes = Math.min(paging.limit ?? ctx.config.scenePageMaxNodes, ctx.config.scenePageMaxNodes)
  return readAttributePage(db, fileId, { afterNodeId, maxNodes, maxBytes: ctx.config.scenePageMaxBytes })
}

export interface SceneNode {
  /** Stable node ID: what scene attributes are keyed by. */
  id: string
  name: string
  children: SceneNode[]
}

/**
 * Stores a file's scene tree (the conversion calls this, in its transaction, when the optimized asset
 * is stored). From then on attribute writes must name nodes of this tree. Attributes of nodes that
 * are no longer in the tree are kept, not deleted: a later revision may bring them back, and no
 * user data is lost by re-uploading. The caller stores a new optimized asset, under a key never used
 * before, in the same transaction (markReady): served trees are kept per process by that key
 * (tree-json.ts).
 */
export async function replaceSceneTree(
  db: Executor,
  fileId: string,
  roots: readonly SceneNode[],
): Promise<void> {
  const rows: repo.SceneNodeRow[] = []
  const seen = new Set<string>()
  const walk = (nodes: readonly SceneNode[], parentId: string | null) => {
    nodes.forEach((node, position) => {
      if (seen.has(node.id)) throw new Error(`scene tree: duplicate node id ${node.id}`)
      seen.add(node.id)
      rows.push({ node_id: node.id, parent_id: parentId, name: node.name, position })
      walk(node.children, node.id)
    })
  }
  walk(roots, null)
  await repo.replaceSceneNodes(db, fileId, rows)
}

/** The file's scene tree as stored by replaceSceneTree (empty while unknown). */
export async function readSceneTree(db: Executor, fileId: string): Promise<SceneNode[]> {
  const rows = await repo.listSceneNodes(db, fileId)
  const children = new Map<string | null, SceneNode[]>()
  // Rows come ordered by position, so each list fills in sibling order.
  for (const row of rows) {
    const node: SceneNode = { id: row.node_id, name: row.name, children: [] }
    const list = children.get(row.parent_id) ?? []
    list.push(node)
    children.set(row.parent_id, list)
  }
  const attach = (nodes: SceneNode[]): SceneNode[] => {
    for (const node of nodes) node.children = attach(children.get(node.id) ?? [])
    return nodes
  }
  return attach(children.get(null) ?? [])
}
