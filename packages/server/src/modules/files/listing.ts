// Listings: a directory of the caller's own files page by page, with its sub-folders (the console's
// view), and the files other accounts shared with the caller. Cursors are opaque to clients.
import type { AppContext } from '../../platform/context.ts'
import { AppError } from '../../platform/errors.ts'
import * as repo from './listing-repository.ts'
import { normalizeDirectory } from './names.ts'
import type { ShareRoleName } from './sharing.ts'
import { fileViewJson } from './view-json.ts'
import { type FileViewShape, toFileView } from './views.ts'

/** Default and largest page. */
export const LISTING_PAGE_MAX = 1000

const BAD_CURSOR = 'The cursor is not one this API answered (pass nextCursor as given).'

function encodeCursor(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url')
}

function decodeCursor(cursor: string | undefined): string {
  if (cursor === undefined) return ''
  const value = Buffer.from(cursor, 'base64url').toString('utf8')
  if (value === '' || encodeCursor(value) !== cursor) throw new AppError('BAD_REQUEST', BAD_CURSOR)
  return value
}

/** A page size as the query gives it (digits); 400 past the maximum. */
export function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return LISTING_PAGE_MAX
  const limit = Number(raw)
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= LISTING_PAGE_MAX)) {
    throw new AppError('VALIDATION_FAILED', `limit must be 1..${LISTING_PAGE_MAX}`)
  }
  return limit
}

export interface Page {
  limit?: string | undefined
  cursor?: string | undefined
}

export interface DirectoryPage {
  /** Each file's view as JSON text (view-json.ts), in name order. */
  filesJson: string[]
  nextCursor: string | null
}

export async function listDirectoryPage(
  ctx: AppContext,
  accountId: string,
  directory: string,
  page: Page,
): Promise<DirectoryPage> {
  const limit = pageLimit(page.limit)
  const rows = await repo.listDirectoryPage(
    ctx.db.kysely,
    accountId,
    normalizeDirectory(directory),
    decodeCursor(page.cursor),
    limit + 1,
  )
  const listed = rows.slice(0, limit)
  const last = listed.at(-1)
  return {
    filesJson: listed.map(fileViewJson),
    nextCursor: rows.length > limit && last ? encodeCursor(last.name) : null,
  }
}

export interface Folder {
  name: string
  path: string
  /** Files in the folder and all folders below it. */
  files: number
}

/** The direct sub-folders of a directory, by name, each with the files it holds (recursively). */
export async function listFolders(ctx: AppContext, accountId: string, directory: string): Promise<Folder[]> {
  const parent = normalizeDirectory(directory)
  const prefix = parent === '/' ? '/' : `${parent}/`
  const counts = new Map<string, number>()
  for (const row of await repo.directoriesBelow(ctx.db.kysely, accountId, prefix)) {
    const name = row.parent.slice(prefix.length).split('/')[0]
    // The directory itself (root: parent "/") is not a sub-folder of itself.
    if (!name) continue
    counts.set(name, (counts.get(name) ?? 0) + Number(row.n))
  }
  return [...counts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, files]) => ({ name, path: `${prefix}${name}`, files }))
}

export type SharedFileShape = FileViewShape & { role: ShareRoleName }

export async function listSharedWith(
  ctx: AppContext,
  accountId: string,
  page: Page,
): Promise<{ files: SharedFileShape[]; nextCursor: string | null }> {
  const limit = pageLimit(page.limit)
  const afterId = decodeCursor(page.cursor)
  if (afterId !== '' && !/^[0-9a-f]{24}$/.test(afterId)) throw new AppError('BAD_REQUEST', BAD_CURSOR)
  const rows = await repo.listSharedPage(ctx.db.kysely, accountId, afterId, limit + 1)
  const files = rows
    .slice(0, limit)
    .map((row) => ({ ...toFileView(row), role: row.share_role === 'editor' ? 'editor' : 'viewer' }) as const)
  const last = files.at(-1)
  return { files, nextCursor: rows.length > limit && last ? encodeCursor(last._id) : null }
}
