// A directory page on PostgreSQL: one query reads the whole rows (a second query, as SQLite's store
// makes, would be a second round trip); views not changed since they were kept are not rebuilt.
import { type Executor, precompiled } from '../../../../platform/db/index.ts'
import { ownFileRecords } from '../../repository.ts'
import { fileView } from '../../view-cache.ts'
import type { ListingStore } from '../store.ts'

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

export const postgresListingStore: ListingStore = {
  async directoryPage(db: Executor, lister, parent, afterName, limit) {
    const rows = await directoryPage(db, lister.accountId, parent, afterName, limit)
    return rows.map((row) => ({ name: row.name, view: fileView(row, 'owner') }))
  },
}
