// Hearing that links ended, for layers that hold link sessions open (live sessions' WebSockets).
// From the row-change feed of file_links (platform/db/row-changes.ts): a link row is never updated,
// so each reported change is a link that ended — revoked, rotated (the old id), or deleted with its
// file (the foreign key's cascade). On SQLite a trigger inside the writing statement reports it in
// this process at once; on PostgreSQL the NOTIFY trigger of migration 0030 reaches every process at
// commit, and revoking calls wait until every process heard it (row-sync.ts).
import type { Db, RowChangeListener, WatchedTable } from '../../platform/db/index.ts'

/**
 * What a listener hears: `{ linkId }` — that link ended: close its guests; `{ linkId: null }` —
 * changes may have been missed (the feed was lost and regained, or another process wrote on
 * SQLite): check every guest again (`isLinkOpen` or `resolveLinkSession`).
 */
export type LinkRevocation = { linkId: string } | { linkId: null }

/**
 * Calls `listener` for every link that ends from now on (see LinkRevocation). Answers a function
 * that stops listening. Without a change feed (a database handle that has none) nothing is heard:
 * callers still check each link session on use (resolveLinkSession).
 */
export function onLinkRevoked(
  ctx: { db: Db; log: { warn(details: object, message: string): void } },
  listener: (revocation: LinkRevocation) => void,
): () => Promise<void> {
  const feed: RowChangeListener = {
    watchedTables: ['file_links'] satisfies WatchedTable[],
    changed(table, id) {
      if (table === 'file_links') listener({ linkId: id })
    },
    reset() {
      listener({ linkId: null })
    },
  }
  const watch = ctx.db.watchRows?.(feed, (message, err) => ctx.log.warn({ err }, message)) ?? null
  return async () => {
    await watch?.stop()
  }
}
