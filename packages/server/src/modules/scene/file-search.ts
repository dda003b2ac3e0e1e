// Search across files (docs/api.md, "Search across files"): which of the files a caller may read
// hold nodes for which every condition holds, and how many. The files are taken in file ID order,
// CHUNK at a time; one statement per chunk counts the matches of all its files, each condition
// reading the indexes that start at (file, generation, key) as the search in one file does. A page
// is bounded in files looked into and in time, so it may end with fewer files than asked, even
// none, and a cursor: only a null cursor says the search is done.
import { performance } from 'node:perf_hooks'
import type { AppContext } from '../../platform/context.ts'
import type { Executor } from '../../platform/db/index.ts'
import { isId } from '../../platform/ids.ts'
import { keyCursor, pageStart } from '../../platform/paging.ts'
import { type ReadableFile, readableFilesAfter } from '../files/index.ts'
import { type Condition, checkConditions, nameTest, valueTest } from './conditions.ts'
import { countMatchesPerFile, type FileNodeSet, publishedMatchesIn } from './property-rows.ts'
import type { Caller } from './service.ts'

/** Files per page when `limit` is not given. */
const FILES_DEFAULT_LIMIT = 50
/**
 * Files counted by one statement: few enough that the time bound is checked often (a chunk of
 * buildings takes tens of ms), many enough that round trips stay few (bench:properties --across).
 */
const CHUNK = 25

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
  const started = performance.now()
  const files: FileMatch[] = []
  for (let at = 0; at < candidates.length; at += CHUNK) {
    if (at > 0 && performance.now() - started > searchPageMaxMs)
      return { files, nextCursor: cursorAfter(at - 1) }
    const chunk = candidates.slice(at, at + CHUNK)
    const counts = await countMatchesPerFile(db, fileSets(db, chunk, query.where))
    for (const [i, candidate] of chunk.entries()) {
      const matches = counts.get(candidate.id) ?? 0
      if (matches > 0) files.push(fileMatch(candidate, matches))
      if (files.length === limit) return { files, nextCursor: cursorAfter(at + i) }
    }
  }
  return { files, nextCursor: candidates.length === 0 ? null : cursorAfter(candidates.length - 1) }
}

/** Each condition's (file, node) pairs among these files' published properties or scene nodes. */
function fileSets(db: Executor, files: readonly ReadableFile[], where: readonly Condition[]): FileNodeSet[] {
  const ids = files.map((file) => file.id)
  return where.map((condition) => {
    if ('node' in condition) {
      const nodes = db.selectFrom('scene_nodes').select(['file_id', 'node_id']).where('file_id', 'in', ids)
      return nodes.where(nameTest(condition))
    }
    const rows = publishedMatchesIn(db, ids, condition.group, condition.name)
    const test = valueTest(condition, (column) => `scene_properties.${column}`)
    return test === null ? rows : rows.where(test)
  })
}

/** A link session's file shows as a viewer's, as its record does (docs/api.md, "Links"). */
function fileMatch(file: ReadableFile, matches: number): FileMatch {
  const role = file.role === 'link' ? 'viewer' : file.role
  return { file: file.id, name: file.name, parent: file.parent, role, matches }
}
