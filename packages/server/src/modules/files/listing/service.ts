// Listings: a directory of the caller's own files page by page, with its sub-folders (the console's
// view), and the files other accounts shared with the caller. Cursors are opaque to clients.
import type { AppContext } from '../../../platform/context.ts'
import { decodeCursor, encodeCursor } from '../../../platform/cursors.ts'
import { AppError } from '../../../platform/errors.ts'
import { isId } from '../../../platform/ids.ts'
import { isFileName, normalizeDirectory } from '../names.ts'
import type { ShareRoleName } from '../sharing/service.ts'
import { fileViewJson, keptViewJson, withCaller } from '../view-json.ts'
import { type FileViewShape, toFileView } from '../views.ts'
import * as repo from './repository.ts'

/** Default and largest page. */
export const LISTING_PAGE_MAX = 1000

/** The key after which a page starts ('' = the first page): a file name, or a file ID. */
function pageStart(cursor: string | undefined, isKey: (key: string) => boolean): string {
  return cursor === undefined ? '' : decodeCursor(cursor, isKey)
}

/** A page size as the query gives it (digits); 400 past the maximum. */
function pageLimit(raw: string | undefined): number {
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

/** Who lists: the owner of the directory (its e-mail is in the answer's records). */
export interface Lister {
  accountId: string
  email: string
}

export async function listDirectoryPage(
  ctx: AppContext,
  lister: Lister,
  directory: string,
  page: Page,
): Promise<DirectoryPage> {
  const limit = pageLimit(page.limit)
  const args = [
    lister.accountId,
    normalizeDirectory(directory),
    pageStart(page.cursor, isFileName),
    limit + 1,
  ] as const
  // SQLite answers in this process: the narrow key query, then whole rows only for the views not
  // kept, costs less than reading every wide JSON column (docs/benchmarks.md). On PostgreSQL the
  // second query would be a second round trip, so one query reads everything.
  const rows =
    ctx.db.dialect === 'sqlite'
      ? await keysThenMissingRows(ctx, lister.email, ...args)
      : (await repo.listDirectoryPage(ctx.db.kysely, ...args)).map((row) => ({
          name: row.name,
          json: fileViewJson(row, 'owner'),
        }))
  const listed = rows.slice(0, limit)
  const last = listed.at(-1)
  return {
    // The lister owns every file of their directories.
    filesJson: listed.flatMap((row) => (row.json === undefined ? [] : [row.json])),
    nextCursor: rows.length > limit && last ? encodeCursor(last.name) : null,
  }
}

/**
 * A page as names and view texts, read key-first (see listDirectoryPage). The rows not kept are
 * read after the keys: one changed meanwhile shows its newer view, one deleted has no text (it is
 * left out, while paging still follows the keys).
 */
async function keysThenMissingRows(
  ctx: AppContext,
  ownerEmail: string,
  ...args: Parameters<typeof repo.listDirectoryPageKeys> extends [unknown, ...infer A] ? A : never
): Promise<{ name: string; json: string | undefined }[]> {
  const keys = (await repo.listDirectoryPageKeys(ctx.db.kysely, ...args)).map((key) => ({
    ...key,
    owner_email: ownerEmail,
    user_email: key.other_uploader_email ?? ownerEmail,
  }))
  const kept = keys.map(keptViewJson)
  const missing = keys.filter((_, i) => kept[i] === undefined).map((key) => key.id)
  const owned = (text: string | undefined) => text && withCaller(text, 'owner')
  if (missing.length === 0) return keys.map((key, i) => ({ name: key.name, json: owned(kept[i]) }))
  const rows = new Map(
    (await repo.ownFilesByIds(ctx.db.kysely, args[0], missing)).map((row) => [row.id, row]),
  )
  return keys.map((key, i) => {
    const row = rows.get(key.id)
    return { name: key.name, json: owned(kept[i]) ?? (row && fileViewJson(row, 'owner')) }
  })
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
  const afterId = pageStart(page.cursor, isId)
  const rows = await repo.listSharedPage(ctx.db.kysely, accountId, afterId, limit + 1)
  const files = rows
    .slice(0, limit)
    .map((row) => toFileView(row, row.share_role === 'editor' ? 'editor' : 'viewer') as SharedFileShape)
  const last = files.at(-1)
  return { files, nextCursor: rows.length > limit && last ? encodeCursor(last._id) : null }
}
