// Listings: a directory of the caller's own files page by page, with its sub-folders (the console's
// view), and the files other accounts shared with the caller. Paging: platform/paging.ts; a page of
// a directory is read by the database's listing store (store.ts).
import type { AppContext } from '../../../platform/context.ts'
import { isId } from '../../../platform/ids.ts'
import { checkPageLimit, keyCursor, pageOfRows, pageStart } from '../../../platform/paging.ts'
import { isFileName, normalizeDirectory } from '../names.ts'
import type { ShareRoleName } from '../sharing/service.ts'
import { type FileViewShape, toFileView } from '../views.ts'
import type { Lister, ListingStore } from './store.ts'

/** Default and largest page. */
export const LISTING_PAGE_MAX = 1000

/** A directory's cursor: the last file name of a page, base64url-encoded. */
const fileNameCursor = keyCursor(isFileName)
/** The shared listing's cursor: the last file ID of a page, base64url-encoded. */
const fileIdCursor = keyCursor(isId)

/** A page size as the query gives it (digits); 400 past the maximum. */
function pageLimit(raw: string | undefined): number {
  return raw === undefined ? LISTING_PAGE_MAX : checkPageLimit(Number(raw), LISTING_PAGE_MAX)
}

export interface Page {
  limit?: string | undefined
  cursor?: string | undefined
}

export interface DirectoryPage {
  /** The files' views, in name order. */
  files: FileViewShape[]
  nextCursor: string | null
}

export async function listDirectoryPage(
  ctx: AppContext,
  store: ListingStore,
  lister: Lister,
  directory: string,
  page: Page,
): Promise<DirectoryPage> {
  const limit = pageLimit(page.limit)
  const afterName = pageStart(fileNameCursor, page.cursor) ?? ''
  const parent = normalizeDirectory(directory)
  const entries = await store.directoryPage(ctx.db.kysely, lister, parent, afterName, limit + 1)
  const { rows, nextCursor } = pageOfRows(entries, limit, fileNameCursor, (entry) => entry.name)
  const files = rows.flatMap((entry) => (entry.view === undefined ? [] : [entry.view]))
  return { files, nextCursor }
}

export interface Folder {
  name: string
  path: string
  /** Files in the folder and all folders below it. */
  files: number
}

/** The direct sub-folders of a directory, by name, each with the files it holds (recursively). */
export async function listFolders(
  ctx: AppContext,
  store: ListingStore,
  accountId: string,
  directory: string,
): Promise<Folder[]> {
  const parent = normalizeDirectory(directory)
  const prefix = parent === '/' ? '/' : `${parent}/`
  const counts = new Map<string, number>()
  for (const row of await store.directoriesBelow(ctx.db.kysely, accountId, prefix)) {
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
  store: ListingStore,
  accountId: string,
  page: Page,
): Promise<{ files: SharedFileShape[]; nextCursor: string | null }> {
  const limit = pageLimit(page.limit)
  const afterId = pageStart(fileIdCursor, page.cursor) ?? ''
  const found = await store.sharedPage(ctx.db.kysely, accountId, afterId, limit + 1)
  const { rows, nextCursor } = pageOfRows(found, limit, fileIdCursor, (row) => row.id)
  const files = rows.map(
    (row) => toFileView(row, row.share_role === 'editor' ? 'editor' : 'viewer') as SharedFileShape,
  )
  return { files, nextCursor }
}
