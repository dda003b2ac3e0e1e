// The writer's side of the listings' consistency rule (postgres/cache.ts): a request that changed
// files or file_shares rows answers only once every process's row-change feed has applied the
// change, so its next listing, whichever process answers it, shows the change. On SQLite it returns
// at once: no process keeps listings (the data version is compared on each turn for the rows that
// are kept, row-changes.ts).
import type { AppContext } from '../../../platform/context.ts'
import { awaitRowChangesSeen } from '../../../platform/db/index.ts'

/** Call after the commit of a change to files or file_shares rows, before answering. */
export function listingsChanged(ctx: Pick<AppContext, 'db' | 'log'>): Promise<void> {
  return awaitRowChangesSeen(ctx.db, ctx.log)
}
