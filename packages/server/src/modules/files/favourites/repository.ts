// SQL of favourites (stars): the file_favourites rows and the caller's favourites listing.
import type { Executor } from '../../../platform/db/index.ts'
import { FILE_RECORD_COLUMNS } from '../repository.ts'

export async function hasFavourite(db: Executor, fileId: string, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('file_favourites')
    .select('file_id')
    .where('file_id', '=', fileId)
    .where('account_id', '=', accountId)
    .executeTakeFirst()
  return row !== undefined
}

/** Stars the file for the account (a star is kept once). */
export async function insertFavourite(db: Executor, fileId: string, accountId: string, now: number) {
  await db
    .insertInto('file_favourites')
    .values({ file_id: fileId, account_id: accountId, created_at: now })
    .onConflict((oc) => oc.columns(['file_id', 'account_id']).doNothing())
    .execute()
}

/** Removes the account's star of the file; false when there was none. */
export async function deleteFavourite(db: Executor, fileId: string, accountId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('file_favourites')
    .where('file_id', '=', fileId)
    .where('account_id', '=', accountId)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function countFavouritesOf(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('file_favourites')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The e-mails of the accounts that starred the file, sorted: the record's `favoritedBy`. */
export async function favouriteEmails(db: Executor, fileId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('file_favourites')
    .innerJoin('accounts', 'accounts.id', 'file_favourites.account_id')
    .select('accounts.email')
    .where('file_favourites.file_id', '=', fileId)
    .orderBy('accounts.email')
    .execute()
  return rows.map((row) => row.email)
}

/** IDs of the files an account starred, in ID order. */
export async function filesStarredBy(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('file_favourites')
    .select('file_id')
    .where('account_id', '=', accountId)
    .orderBy('file_id')
    .execute()
  return rows.map((row) => row.file_id)
}

/**
 * One page of the files the account starred and may still read (its own, or shared with it), in
 * file ID order after `afterId` ('' = from the start), each with the account's share role (null:
 * its own). One query: the records, both e-mails and the role come with the page (no read per file).
 * Index: file_favourites_account_idx.
 */
export function listFavouritesPage(db: Executor, accountId: string, afterId: string, limit: number) {
  return db
    .selectFrom('file_favourites')
    .innerJoin('files', 'files.id', 'file_favourites.file_id')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .leftJoin('file_shares', (join) =>
      join.onRef('file_shares.file_id', '=', 'files.id').on('file_shares.account_id', '=', accountId),
    )
    .select([...FILE_RECORD_COLUMNS, 'files.owner_id', 'file_shares.role as share_role'])
    .where('file_favourites.account_id', '=', accountId)
    .where('file_favourites.file_id', '>', afterId)
    .where((eb) =>
      eb.or([eb('files.owner_id', '=', accountId), eb('file_shares.account_id', 'is not', null)]),
    )
    .orderBy('file_favourites.file_id')
    .limit(limit)
    .execute()
}
