// The record's two lists of accounts, kept beside the file row so that a listing reads them with
// the row (one query, no read per file): `roles` (the shares) and `favoritedBy` (the stars).
// Re-derived in the transaction of every change to either, under the file's lock.
import type { Executor } from '../../platform/db/index.ts'
import { favouriteEmails } from './favourites/repository.ts'
import * as repo from './repository.ts'

/** Re-derives `roles` and `favoritedBy` from the rows (in the caller's transaction); `__v` moves. */
export async function refreshRecordLists(tx: Executor, fileId: string): Promise<void> {
  const shares = await repo.listShares(tx, fileId)
  const roles = shares.map((share) => ({ email: share.email, role: share.role }))
  const favoritedBy = await favouriteEmails(tx, fileId)
  await repo.setRecordLists(
    tx,
    fileId,
    { roles: JSON.stringify(roles), favoritedBy: JSON.stringify(favoritedBy) },
    Date.now(),
  )
}
