// Search across files (docs/api.md, "Search across files"): which of the files a caller may read
// hold nodes for which every condition holds, and how many. The files are looked into one by one in
// file ID order, each with the single-file search's indexed sets (search.ts), so a page costs the
// files it looks into. A page is bounded in files looked into and in time; it may therefore end
// with fewer files than asked, even none, and a cursor: only a null cursor says the search is done.
import { performance } from 'node:perf_hooks'
import type { AppContext } from '../../platform/context.ts'
import { isId } from '../../platform/ids.ts'
import { keyCursor, pageStart } from '../../platform/paging.ts'
import { type ReadableFile, readableFilesAfter } from '../files/index.ts'
import { countMatches } from './property-rows.ts'
import { type Condition, checkConditions, conditionSets } from './search.ts'
import type { Caller } from './service.ts'

/** Files per page when `limit` is not given. */
const FILES_DEFAULT_LIMIT = 50

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
  const candidates = await readableFilesAfter(ctx.db.kysely, caller.accountId, after, searchPageMaxFiles)
  const started = performance.now()
  const files: FileMatch[] = []
  let lastLooked: string | undefined
  for (const candidate of candidates) {
    const full = files.length === limit || performance.now() - started > searchPageMaxMs
    if (full && lastLooked !== undefined) return { files, nextCursor: fileCursor.encode(lastLooked) }
    const matches = await matchesIn(ctx, candidate, query.where)
    lastLooked = candidate.id
    if (matches > 0) files.push(fileMatch(candidate, matches))
  }
  // Every candidate looked into: more files follow only when the read was cut at its bound.
  const more = candidates.length === searchPageMaxFiles && lastLooked !== undefined
  return { files, nextCursor: more && lastLooked ? fileCursor.encode(lastLooked) : null }
}

async function matchesIn(ctx: AppContext, file: ReadableFile, where: readonly Condition[]): Promise<number> {
  const sets = await conditionSets(ctx.db.kysely, file.id, where)
  return sets === null ? 0 : countMatches(ctx.db.kysely, sets)
}

/** A link session's file shows as a viewer's, as its record does (docs/api.md, "Links"). */
function fileMatch(file: ReadableFile, matches: number): FileMatch {
  const role = file.role === 'link' ? 'viewer' : file.role
  return { file: file.id, name: file.name, parent: file.parent, role, matches }
}
