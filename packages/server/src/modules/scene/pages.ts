// Paged reading of a file's scene attributes. A page holds whole nodes, in node ID order: at most
// `maxNodes`, and it ends at the first node boundary once `maxBytes` are read (so it always holds
// at least one node). Rows are read in small batches with a turn of the event loop between them,
// so a file at its caps (64 MiB) never holds the loop for long, and only one page is in memory.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Executor } from '../../platform/db/index.ts'
import { keyCursor } from '../../platform/paging.ts'
import { attributeBytes } from './limits.ts'
import * as repo from './repository.ts'
import { NODE_ID_MAX_LENGTH } from './schemas.ts'
import type { NodeIdToAttributes } from './service.ts'

// Rows per query: at most ~6 MiB even when every row is a full 64 KiB node.
const ROWS_PER_BATCH = 100

export interface AttributesPage {
  nodeIdToAttributes: NodeIdToAttributes
  /** The cursor of the next page; null when this page is the last. */
  nextCursor: string | null
}

/**
 * A node ID a cursor may carry: one an attribute write could name. Such IDs are free text, so other
 * control characters stay allowed (a page may end at such a node); NUL never is (keyCursor).
 */
function isNodeId(key: string): boolean {
  return [...key].length <= NODE_ID_MAX_LENGTH
}

/** The last node ID of a page, base64url-encoded. */
const nodeCursor = keyCursor(isNodeId)

/**
 * The node ID inside a cursor (opaque to clients: the last node ID of a page, base64url-encoded);
 * 400 INVALID_CURSOR for one this API did not answer.
 */
export function decodeNodeCursor(cursor: string): string {
  return nodeCursor.decode(cursor)
}

export function encodeNodeCursor(nodeId: string): string {
  return nodeCursor.encode(nodeId)
}

export async function readAttributePage(
  db: Executor,
  fileId: string,
  page: { afterNodeId: string | undefined; maxNodes: number; maxBytes: number },
): Promise<AttributesPage> {
  const byNode = new Map<string, [string, unknown][]>()
  let bytes = 0
  let lastNodeId: string | undefined
  let after: { node_id: string; name?: string } | undefined =
    page.afterNodeId === undefined ? undefined : { node_id: page.afterNodeId }
  for (;;) {
    const rows = await repo.attributeRowsAfter(db, fileId, after, ROWS_PER_BATCH)
    for (const row of rows) {
      let list = byNode.get(row.node_id)
      if (list === undefined) {
        // A new node: the page is full, and this node proves there is a next page.
        if (byNode.size >= page.maxNodes || bytes >= page.maxBytes) return finish(byNode, lastNodeId ?? null)
        list = []
        byNode.set(row.node_id, list)
        lastNodeId = row.node_id
      }
      list.push([row.name, JSON.parse(row.value) as unknown])
      bytes += attributeBytes(row.name, row.value)
    }
    const last = rows.at(-1)
    if (last === undefined || rows.length < ROWS_PER_BATCH) return finish(byNode, null)
    after = { node_id: last.node_id, name: last.name }
    await nextTurn()
  }
}

function finish(byNode: Map<string, [string, unknown][]>, nextNodeId: string | null): AttributesPage {
  // Object.fromEntries defines own properties, so no node or attribute name can touch a prototype.
  const nodes = [...byNode.keys()].sort()
  return {
    nodeIdToAttributes: Object.fromEntries(
      nodes.map((id) => [id, Object.fromEntries(byNode.get(id) ?? [])]),
    ) as NodeIdToAttributes,
    nextCursor: nextNodeId === null ? null : nodeCursor.encode(nextNodeId),
  }
}
