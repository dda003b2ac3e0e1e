// Search of a file's nodes by their model properties and names (docs/api.md, "Model properties").
// Each condition selects a set of node IDs through an index that starts at (file, key) — or the
// file's scene nodes, for a name — and the answer is their intersection, paged in node ID order.
import type { AppContext } from '../../platform/context.ts'
import type { Executor } from '../../platform/db/index.ts'
import { requireFileAccess } from '../files/index.ts'
import { type Condition, checkConditions, type NameCondition, nameTest, valueTest } from './conditions.ts'
import { decodeNodeCursor, encodeNodeCursor } from './pages.ts'
import {
  countMatches,
  keyIdsOf,
  type NodeSet,
  type PropertySet,
  propertyMatches,
  publishedRevision,
  searchPage,
} from './property-rows.ts'
import type { Caller } from './service.ts'

export interface SearchAnswer {
  nodes: string[]
  total: number
  nextCursor: string | null
}

const SEARCH_MAX_LIMIT = 1000
const SEARCH_DEFAULT_LIMIT = 100

export async function searchNodes(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
  query: { where: readonly Condition[]; limit?: number; cursor?: string },
): Promise<SearchAnswer> {
  const db = ctx.db.kysely
  await requireFileAccess(db, caller.accountId, fileId, 'read')
  const afterNodeId = query.cursor === undefined ? undefined : decodeNodeCursor(query.cursor)
  const limit = Math.min(query.limit ?? SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT)
  checkConditions(query.where)
  const sets = await conditionSets(db, fileId, query.where)
  if (sets === null) return { nodes: [], total: 0, nextCursor: null }
  const found = await searchPage(db, sets, { afterNodeId, limit })
  // A first page that holds every match has counted them: the count's second pass is only paid
  // when there is more than one page.
  const whole = afterNodeId === undefined && found.length <= limit
  const total = whole ? found.length : await countMatches(db, sets)
  const nodes = found.slice(0, limit)
  const last = nodes.at(-1)
  return { nodes, total, nextCursor: found.length > limit && last ? encodeNodeCursor(last) : null }
}

/**
 * The node sets of the conditions in the file's published properties; null when one names a property
 * the file never has, so nothing can match every condition.
 */
async function conditionSets(
  db: Executor,
  fileId: string,
  where: readonly Condition[],
): Promise<NodeSet[] | null> {
  const published = await publishedRevision(db, fileId)
  const sets: NodeSet[] = []
  for (const condition of where) {
    const set = await nodeSet(db, fileId, published, condition)
    if (set === null) return null
    sets.push(set)
  }
  return sets
}

async function nodeSet(
  db: Executor,
  fileId: string,
  published: PropertySet | undefined,
  condition: Condition,
): Promise<NodeSet | null> {
  if ('node' in condition) return nameSet(db, fileId, condition)
  const keyIds = published ? await keyIdsOf(db, published, condition.group, condition.name) : []
  if (!published || keyIds.length === 0) return null
  const rows = propertyMatches(db, published, keyIds)
  const test = valueTest(condition, (column) => column)
  return test === null ? rows : rows.where(test)
}

function nameSet(db: Executor, fileId: string, condition: NameCondition): NodeSet {
  return db
    .selectFrom('scene_nodes')
    .select('node_id')
    .where('file_id', '=', fileId)
    .where(nameTest(condition))
}
