// How a page of a directory is read: the one part of the listings where the two databases want
// different queries, so one implementation per database (sqlite/store.ts, postgres/store.ts) behind
// this interface, chosen once when the listing routes are composed (listingStoreFor), never per
// request. Measured in docs/benchmarks.md: SQLite answers in this process, where reading the narrow
// key columns first and whole rows only for the views not kept costs less than reading every wide
// JSON column; on PostgreSQL that second query would be a second round trip, so one query reads all.
import { type Db, type Executor, forDialect, type PerDialect } from '../../../platform/db/index.ts'
import type { FileViewShape } from '../views.ts'
import { postgresListingStore } from './postgres/store.ts'
import { sqliteListingStore } from './sqlite/store.ts'

/** Who lists: the owner of the directory (its e-mail is in the answer's records). */
export interface Lister {
  accountId: string
  email: string
}

/** One file of a directory page: its name (the cursor's key) and its view, if it still exists. */
interface DirectoryEntry {
  name: string
  /**
   * The file's view as its owner (the lister: a directory holds only its owner's files) sees it,
   * kept (view-cache.ts); undefined when the file went between two reads of the page.
   */
  view: FileViewShape | undefined
}

export interface ListingStore {
  /**
   * Up to `limit` files of the lister's directory `parent`, in name order, after the name
   * `afterName` ('' = from the first).
   */
  directoryPage(
    db: Executor,
    lister: Lister,
    parent: string,
    afterName: string,
    limit: number,
  ): Promise<DirectoryEntry[]>
}

const STORES: PerDialect<ListingStore> = {
  sqlite: sqliteListingStore,
  postgres: postgresListingStore,
}

/** The listing store for `db`'s database (chosen once, when the listing routes are registered). */
export function listingStoreFor(db: Db): ListingStore {
  return forDialect(db, STORES)
}
