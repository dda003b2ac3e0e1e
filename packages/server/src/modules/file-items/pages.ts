// Paged reading of a file's items (annotations, configurations), oldest first (ID order). A page
// holds at most `maxItems` items the caller may see, and ends at the first item once `maxBytes` of
// stored bytes are read (so it always holds at least one). Rows are read in batches sized to about
// BATCH_BYTES from the rows seen so far, with a turn of the event loop between batches and after
// every YIELD_BYTES of rows worked through, so a file at its caps (64 MiB, items up to the 1 MiB
// body limit) never holds the loop for long; rows hidden from the caller are skipped the same way.
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { Executor } from '../../platform/db/index.ts'
import { isId } from '../../platform/ids.ts'
import { keyCursor } from '../../platform/paging.ts'

const FIRST_BATCH = 16
const MAX_BATCH = 200
const BATCH_BYTES = 1024 * 1024
const YIELD_BYTES = 1024 * 1024

export interface ItemPage<Item> {
  items: Item[]
  /** The cursor of the next page; null when this page is the last. */
  nextCursor: string | null
}

/** The SQL a page needs of an item table (the module's repository.ts). */
export interface PagedRows<Row> {
  /** Up to `limit` of the file's rows in ID order, after the row `afterId` if given. */
  listAfter(db: Executor, fileId: string, afterId: string | undefined, limit: number): Promise<Row[]>
  /** UTF-8 bytes of the row's stored text and JSON. */
  bytesOf(row: Row): number
}

/** The last item ID of a page, base64url-encoded. */
const itemCursor = keyCursor(isId)

/**
 * The item ID inside a cursor (opaque to clients: the last item ID of a page, base64url-encoded);
 * 400 INVALID_CURSOR for one this API did not answer.
 */
export function decodeItemCursor(cursor: string): string {
  return itemCursor.decode(cursor)
}

/** One page; `show` answers the item as the caller sees it, or undefined when it is hidden from them. */
export async function readItemPage<Row extends { id: string }, Item>(
  db: Executor,
  fileId: string,
  rows: PagedRows<Row>,
  page: { afterId: string | undefined; maxItems: number; maxBytes: number },
  show: (row: Row) => Item | undefined,
): Promise<ItemPage<Item>> {
  const items: Item[] = []
  let bytes = 0
  let lastShownId: string | undefined
  let afterId = page.afterId
  let batch = FIRST_BATCH
  let sinceTurn = 0
  for (;;) {
    const found = await rows.listAfter(db, fileId, afterId, batch)
    let foundBytes = 0
    for (const row of found) {
      const size = rows.bytesOf(row)
      foundBytes += size
      sinceTurn += size
      const item = show(row)
      if (item !== undefined) {
        // The page is full, and this item proves there is a next page.
        if (items.length >= page.maxItems || bytes >= page.maxBytes) {
          return { items, nextCursor: lastShownId === undefined ? null : itemCursor.encode(lastShownId) }
        }
        items.push(item)
        bytes += size
        lastShownId = row.id
      }
      if (sinceTurn >= YIELD_BYTES) {
        sinceTurn = 0
        await nextTurn()
      }
    }
    const last = found.at(-1)
    if (last === undefined || found.length < batch) return { items, nextCursor: null }
    afterId = last.id
    batch = Math.max(
      1,
      Math.min(MAX_BATCH, Math.floor((BATCH_BYTES * found.length) / Math.max(1, foundBytes))),
    )
    await nextTurn()
  }
}
