// Search across files (docs/api.md, "Search across files"): which of the files a caller may read
// hold nodes for which every condition holds, and how many. The files are taken in file ID order, a
// chunk at a time (FILES_PER_STATEMENT): a statement per property condition finds its keys in the
// chunk's files (a file without them is out), then one statement counts the matches of the rest,
// each condition reading the indexes that start at (file, generation, key) as the search in one
// file does. A page is bounded in files looked into and in time, so it may end with fewer files
// than asked, even none, and a cursor: only a null cursor says the search is done.
import { performance } from 'node:perf_hooks'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, forDialect, type PerDialect } from '../../platform/db/index.ts'
import { isId } from '../../platform/ids.ts'
import { keyCursor, pageStart } from '../../platform/paging.ts'
import { type ReadableFile, readableFilesAfter } from '../files/index.ts'
import { type Condition, checkConditions, nameTest, type PropertyCondition, valueTest } from './conditions.ts'
import {
  countMatchesPerFile,
  type FileNodeSet,
  type KeysByFile,
  propertyRowsOf,
  publishedKeysIn,
} from './property-rows.ts'
import type { Caller } from './service.ts'

/** Files per page when `limit` is not given. */
const FILES_DEFAULT_LIMIT = 50
/**
 * Files counted by one statement, per database. PostgreSQL: 25, so that round trips stay few (200
 * buildings, doors rated REI60: 546 → 90 ms p50 against four statements per file) and the time
 * bound is still checked every few tens of ms. SQLite: 1, as its statements are calls in the
 * process and its plan of a statement over 25 files was slower (the same search: 362 ms, against
 * 65 ms a file at a time; bench:properties --across).
 */
const FILES_PER_STATEMENT: PerDialect<number> = { sqlite: 1, postgres: 25 }

/** The last file ID a page looked into, base64url-encoded. */
const fileCursor = keyCursor(isId)

interface FileMatch {
  file: string
  name: string
  parent: string
  role: 'owner' | 'editor' | 'viewer'
  /** Nodes of the file for which every condition holds. */
  matches: number
}

export interface FileSearchAnswer {
  files: FileMatch[]
  nextCursor: string | null
}

export async function searchFiles(
  ctx: AppContext,
  caller: Caller,
  query: { where: readonly Condition[]; limit?: number; cursor?: string },
): Promise<FileSearchAnswer> {
  checkConditions(query.where)
  const after = pageStart(fileCursor, query.cursor) ?? ''
  const limit = query.limit ?? FILES_DEFAULT_LIMIT
  const { searchPageMaxFiles, searchPageMaxMs } = ctx.config
  const db = ctx.db.kysely
  const candidates = await readableFilesAfter(db, caller.accountId, after, searchPageMaxFiles)
  // More files may follow the last candidate only when the read was cut at its bound.
  const cursorAfter = (index: number): string | null =>
    index === candidates.length - 1 && candidates.length < searchPageMaxFiles
      ? null
      : fileCursor.encode(candidates[index]?.id ?? '')
  const chunkSize = forDialect(ctx.db, FILES_PER_STATEMENT)
  const started = performance.now()
  const files: FileMatch[] = []
  for (let at = 0; at < candidates.length; at += chunkSize) {
    if (at > 0 && performance.now() - started > searchPageMaxMs)
      return { files, nextCursor: cursorAfter(at - 1) }
    const chunk = candidates.slice(at, at + chunkSize)
    const counts = await chunkCounts(db, chunk, query.where)
    for (const [i, candidate] of chunk.entries()) {
      const matches = counts.get(candidate.id) ?? 0
      if (matches > 0) files.push(fileMatch(candidate, matches))
      if (files.length === limit) return { files, nextCursor: cursorAfter(at + i) }
    }
  }
  return { files, nextCursor: candidates.length === 0 ? null : cursorAfter(candidates.length - 1) }
}

/**
 * How many nodes of each of these files match every condition: first the keys of each property
 * condition in the files (a file without one is out), then one statement counting the rest.
 */
async function chunkCounts(
  db: Executor,
  files: readonly ReadableFile[],
  where: readonly Condition[],
): Promise<Map<string, number>> {
  let ids = files.map((file) => file.id)
  const keysOf = new Map<PropertyCondition, KeysByFile>()
  for (const condition of where) {
    if ('node' in condition || ids.length === 0) continue
    const keys = await publishedKeysIn(db, ids, condition.group, condition.name)
    keysOf.set(condition, keys)
    ids = ids.filter((id) => keys.has(id))
  }
  if (ids.length === 0) return new Map()
  const sets = where.map((condition): FileNodeSet => {
    if ('node' in condition) {
      const nodes = db.selectFrom('scene_nodes').select(['file_id', 'node_id']).where('file_id', 'in', ids)
      return nodes.where(nameTest(condition))
    }
    const keys = new Map([...(keysOf.get(condition) ?? [])].filter(([id]) => ids.includes(id)))
    const rows = propertyRowsOf(db, keys)
    const test = valueTest(condition, (column) => column)
    return test === null ? rows : rows.where(test)
  })
  return countMatchesPerFile(db, sets)
}

/** A link session's file shows as a viewer's, as its record does (docs/api.md, "Links"). */
function fileMatch(file: ReadableFile, matches: number): FileMatch {
  const role = file.role === 'link' ? 'viewer' : file.role
  return { file: file.id, name: file.name, parent: file.parent, role, matches }
}
