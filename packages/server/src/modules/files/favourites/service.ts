// Favourites: an account stars the files it may read (its own and those shared with it) and lists
// them. Every reader of a file sees the same `favoritedBy`: the e-mails of the accounts that starred
// it, all of them readers (a revoked share takes its star along, sharing/service.ts), as every
// reader already sees the `roles` e-mails. A star emits no event: it is a reader's bookmark, not a
// change of the file, and none of the event names says it (docs/webhooks.md); the record carries it
// in the next event about the file.
import type { AppContext } from '../../../platform/context.ts'
import { lockResource, type Tx } from '../../../platform/db/index.ts'
import { AppError } from '../../../platform/errors.ts'
import { isId } from '../../../platform/ids.ts'
import { checkPageLimit, keyCursor, pageOfRows, pageStart } from '../../../platform/paging.ts'
import { requireFileAccess, roleOf } from '../access.ts'
import { listingsChanged } from '../listing/changes.ts'
import { LISTING_PAGE_MAX } from '../listing/service.ts'
import { lockFile } from '../locks.ts'
import { refreshRecordLists } from '../record-lists.ts'
import { type FileViewShape, viewOf } from '../service.ts'
import { fileView } from '../view-cache.ts'
import * as repo from './repository.ts'

/** The favourites listing's cursor: the last file ID of a page, base64url-encoded. */
const fileIdCursor = keyCursor(isId)

async function refuseAtCap(ctx: AppContext, tx: Tx, accountId: string): Promise<void> {
  const starred = await repo.countFavouritesOf(tx, accountId)
  const max = ctx.config.accountMaxFavourites
  if (starred >= max) {
    throw new AppError(
      'FAVOURITE_LIMIT_REACHED',
      `You starred ${starred} files; the limit is ${max} (TESSERA_ACCOUNT_MAX_FAVOURITES). Unstar one first.`,
    )
  }
}

/**
 * Stars a file the caller may read; starring it again changes nothing (no new `__v`). Under the
 * account's stars lock (concurrent stars count one after another against the cap), then the file's.
 */
export async function starFile(ctx: AppContext, accountId: string, fileId: string): Promise<FileViewShape> {
  const { db } = ctx
  // Access first, outside any lock: a stranger's call takes no lock at all.
  await requireFileAccess(db.kysely, accountId, fileId, 'read')
  const view = await db.kysely.transaction().execute(async (tx) => {
    await lockResource(db, tx, `tessera.favourites.${accountId}`)
    await lockFile(db, tx, fileId)
    await requireFileAccess(tx, accountId, fileId, 'read')
    if (!(await repo.hasFavourite(tx, fileId, accountId))) {
      await refuseAtCap(ctx, tx, accountId)
      await repo.insertFavourite(tx, fileId, accountId, Date.now())
      await refreshRecordLists(tx, fileId)
    }
    return viewOf(tx, fileId, accountId)
  })
  await listingsChanged(ctx)
  return view
}

/** Removes the caller's star of a file they may read; unstarring an unstarred file changes nothing. */
export async function unstarFile(ctx: AppContext, accountId: string, fileId: string): Promise<FileViewShape> {
  const { db } = ctx
  await requireFileAccess(db.kysely, accountId, fileId, 'read')
  const view = await db.kysely.transaction().execute(async (tx) => {
    await lockFile(db, tx, fileId)
    await requireFileAccess(tx, accountId, fileId, 'read')
    if (await repo.deleteFavourite(tx, fileId, accountId)) await refreshRecordLists(tx, fileId)
    return viewOf(tx, fileId, accountId)
  })
  await listingsChanged(ctx)
  return view
}

/** A page of the files the caller starred, in file ID order, each as the caller sees it. */
export async function listFavourites(
  ctx: AppContext,
  accountId: string,
  page: { limit?: string | undefined; cursor?: string | undefined },
): Promise<{ files: FileViewShape[]; nextCursor: string | null }> {
  const limit =
    page.limit === undefined ? LISTING_PAGE_MAX : checkPageLimit(Number(page.limit), LISTING_PAGE_MAX)
  const afterId = pageStart(fileIdCursor, page.cursor) ?? ''
  const found = await repo.listFavouritesPage(ctx.db.kysely, accountId, afterId, limit + 1)
  const { rows, nextCursor } = pageOfRows(found, limit, fileIdCursor, (row) => row.id)
  return { files: rows.map((row) => fileView(row, roleOf(row, accountId))), nextCursor }
}
