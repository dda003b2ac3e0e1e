// How a page of a listing is read: the part of the listings where the two databases want different
// designs, so one implementation per database (sqlite/store.ts, postgres/store.ts) behind this
// interface, chosen once when the listing routes are composed (listingStoreFor), never per request.
// Measured in docs/benchmarks.md: SQLite answers in this process, where reading the narrow key
// columns first and whole rows only for the views not kept costs less than reading every wide JSON
// column; on PostgreSQL every read is a round trip, so pages are answered from memory while the
// database's notifications vouch for them (postgres/cache.ts), and a miss reads all in one query.
import type { AppContext } from '../../../platform/context.ts'
import { type Executor, forDialect, type PerDialect } from '../../../platform/db/index.ts'
import type { findFileForAccount } from '../repository.ts'
import type { FileViewShape } from '../views.ts'
import type { ListingCacheStats } from './postgres/cache.ts'
import { postgresListingStore } from './postgres/store.ts'
import type { directoriesBelow, listSharedPage } from './repository.ts'
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

/** A directory holding files, with how many (directly). */
type DirectoryCount = Awaited<ReturnType<typeof directoriesBelow>>[number]

type ReadableFile = NonNullable<Awaited<ReturnType<typeof findFileForAccount>>>

/** A file shared with the lister, with the lister's role. */
type SharedRow = Awaited<ReturnType<typeof listSharedPage>>[number]

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
  /** Every directory of the owner below `prefix` (ending with "/") that holds files, with its file count. */
  directoriesBelow(db: Executor, ownerId: string, prefix: string): Promise<DirectoryCount[]>
  /**
   * The file with its owner's and uploader's e-mails and `accountId`'s share role, if the account
   * owns it or it is shared with them (files/access.ts requireFileAccess).
   */
  fileForReader(db: Executor, fileId: string, accountId: string): Promise<ReadableFile | undefined>
  /** Up to `limit` files shared with the account, in file ID order after `afterId` ('' = from the start). */
  sharedPage(db: Executor, accountId: string, afterId: string, limit: number): Promise<SharedRow[]>
  /** The store's cache's counters, where it keeps one. */
  readonly cacheStats?: Readonly<ListingCacheStats>
  stop?(): Promise<void>
}

const STORES: PerDialect<(ctx: AppContext) => ListingStore> = {
  sqlite: () => sqliteListingStore,
  postgres: postgresListingStore,
}

const stores = new WeakMap<AppContext, ListingStore>()

/** The listing store for `ctx`'s database (opened once, when the listing routes are registered). */
export function listingStoreFor(ctx: AppContext): ListingStore {
  const store = forDialect(ctx.db, STORES)(ctx)
  stores.set(ctx, store)
  return store
}

/** The app's way of reading a file for an account (undefined before the routes are registered: the CLI). */
export function keptFileReader(ctx: AppContext): ListingStore['fileForReader'] | undefined {
  return stores.get(ctx)?.fileForReader
}

/** The counters of the app's listing cache (PostgreSQL), for /metrics. */
export function listingCacheStats(ctx: AppContext): Readonly<ListingCacheStats> | undefined {
  return stores.get(ctx)?.cacheStats
}
