// Listings on PostgreSQL: one query reads the whole rows of a page (a second query, as SQLite's
// store makes, would be a second round trip), and pages are answered from memory while the
// row-change feed vouches for them (cache.ts). Views not changed since they were kept are not
// rebuilt (view-cache.ts).
import type { AppContext } from '../../../../platform/context.ts'
import { type Executor, precompiled } from '../../../../platform/db/index.ts'
import { findFileForAccount, ownFileRecords } from '../../repository.ts'
import { fileView } from '../../view-cache.ts'
import { fileViewText } from '../../view-text.ts'
import { directoriesBelow, listSharedPage } from '../repository.ts'
import type { ListingStore } from '../store.ts'
import { ListingCache } from './cache.ts'

// Names are unique in a directory (the key owner + parent/name is), so the name is the cursor;
// every name is non-empty, so `name > ''` starts at the beginning. Index: files_owner_parent_name_idx.
// Precompiled: a named prepared statement.
const directoryPage = precompiled((db, ownerId: string, parent: string, afterName: string, limit: number) =>
  ownFileRecords(db, ownerId)
    .where('files.parent', '=', parent)
    .where('files.name', '>', afterName)
    .orderBy('files.name')
    .limit(limit),
)

/** What a row costs in memory: its text, as its JSON columns are text. */
function rowBytes(row: object): number {
  let bytes = 0
  for (const value of Object.values(row)) bytes += typeof value === 'string' ? value.length * 2 : 8
  return bytes
}

/** The store of `ctx`'s database, with its process's cache of pages (stopped with the app). */
export function postgresListingStore(ctx: AppContext): ListingStore {
  const cache = new ListingCache()
  cache.start(ctx)
  return {
    cacheStats: cache.stats,
    stop: () => cache.stop(),
    directoryPage(db: Executor, lister, parent, afterName, limit) {
      // A directory holds only its owner's files: its owner is the one account whose changes move it.
      const key = `d\0${lister.accountId}\0${parent}\0${afterName}\0${limit}`
      return cache.page(key, Date.now(), async () => {
        const rows = await directoryPage(db, lister.accountId, parent, afterName, limit)
        const value = rows.map((row) => ({ name: row.name, view: fileView(row, 'owner') }))
        // Text kept with each view (view-text.ts): written here once, reused by every answer.
        const bytes = value.reduce((sum, entry) => sum + fileViewText(entry.view).length * 2, 0)
        return { value, accounts: [lister.accountId], bytes }
      })
    },
    fileForReader(db, fileId, accountId) {
      // Only files the account may read are kept (a miss of any other is read every time), under
      // the owner (its changes) and the reader (a change of their share).
      const key = `r\0${accountId}\0${fileId}`
      return cache.page(key, Date.now(), async () => {
        const value = await findFileForAccount(db, fileId, accountId)
        return {
          value,
          accounts: value ? [value.owner_id, accountId] : null,
          bytes: value ? rowBytes(value) : 0,
        }
      })
    },
    directoriesBelow(db, ownerId, prefix) {
      return cache.page(`f\0${ownerId}\0${prefix}`, Date.now(), async () => {
        const value = await directoriesBelow(db, ownerId, prefix)
        const bytes = value.reduce((sum, row) => sum + row.parent.length * 2 + 16, 0)
        return { value, accounts: [ownerId], bytes }
      })
    },
    sharedPage(db, accountId, afterId, limit) {
      const key = `s\0${accountId}\0${afterId}\0${limit}`
      return cache.page(key, Date.now(), async () => {
        const value = await listSharedPage(db, accountId, afterId, limit)
        const owners = new Set(value.map((row) => row.owner_id))
        const bytes = value.reduce((sum, row) => sum + rowBytes(row), 0)
        return { value, accounts: [accountId, ...owners], bytes }
      })
    },
  }
}
