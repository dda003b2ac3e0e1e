// A directory page on SQLite, read key-first: the narrow columns that say whether a kept view is
// still the row's (view-cache.ts) and the name (the cursor), then whole rows only for the views not
// kept. SQLite answers in this process, so the second query costs no round trip, and skipping the
// wide JSON columns of unchanged rows is most of the saving (docs/benchmarks.md). A row changed
// between the two queries shows its newer view; one deleted has no view (the page leaves it out,
// while paging still follows the keys).
import { type Executor, precompiled } from '../../../../platform/db/index.ts'
import { findFileForAccount, ownFileRecords } from '../../repository.ts'
import { fileView, keptView } from '../../view-cache.ts'
import { directoriesBelow, listSharedPage } from '../repository.ts'
import type { ListingStore } from '../store.ts'

// No wide JSON columns and no join: the owner is the lister, whose e-mail the lister knows; the
// uploader's e-mail is read only when it is someone else. Index: files_owner_parent_name_idx.
const directoryPageKeys = precompiled(
  (db, ownerId: string, parent: string, afterName: string, limit: number) =>
    db
      .selectFrom('files')
      .select((eb) => [
        'files.id',
        'files.name',
        'files.version',
        'files.updated_at',
        'files.progress',
        'files.state',
        'files.thumbnail_key',
        eb
          .case()
          .when('files.user_id', '=', eb.ref('files.owner_id'))
          .then(eb.lit(null))
          .else(
            eb.selectFrom('accounts').select('accounts.email').whereRef('accounts.id', '=', 'files.user_id'),
          )
          .end()
          .$castTo<string | null>()
          .as('other_uploader_email'),
      ])
      .where('files.owner_id', '=', ownerId)
      .where('files.parent', '=', parent)
      .where('files.name', '>', afterName)
      .orderBy('files.name')
      .limit(limit),
)

/** Whole rows of the owner's files among `ids` (any order; a file deleted meanwhile is absent). */
function ownFilesByIds(db: Executor, ownerId: string, ids: readonly string[]) {
  return ownFileRecords(db, ownerId).where('files.id', 'in', ids).execute()
}

export const sqliteListingStore: ListingStore = {
  async directoryPage(db, lister, parent, afterName, limit) {
    const keys = (await directoryPageKeys(db, lister.accountId, parent, afterName, limit)).map((key) => ({
      ...key,
      owner_email: lister.email,
      user_email: key.other_uploader_email ?? lister.email,
    }))
    const kept = keys.map((key) => keptView(key, 'owner'))
    const missing = keys.filter((_, i) => kept[i] === undefined).map((key) => key.id)
    if (missing.length === 0) return keys.map((key, i) => ({ name: key.name, view: kept[i] }))
    const rows = new Map((await ownFilesByIds(db, lister.accountId, missing)).map((row) => [row.id, row]))
    return keys.map((key, i) => {
      const row = rows.get(key.id)
      return { name: key.name, view: kept[i] ?? (row && fileView(row, 'owner')) }
    })
  },
  directoriesBelow,
  fileForReader: findFileForAccount,
  sharedPage: listSharedPage,
}
