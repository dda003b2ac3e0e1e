// Caps on the items of one file (annotations, configurations): how many it holds and the bytes of
// their stored text and JSON, against the running totals in file_item_totals (repository.ts). Every
// create, update and delete changes the totals in its transaction, after taking the file's lock (the
// files module's lockFile), so concurrent writers to one file check the caps one after another and
// never pass them together. A cap only refuses growth: an update that shrinks a file already past a
// (lowered) cap passes.
import type { Executor } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { addToItemTotals, type ItemTotals, readItemTotals } from './repository.ts'

/** A kind's caps and the variables that set them (named in every refusal). */
export interface ItemCaps {
  maxItems: number
  itemsVariable: string
  maxBytes: number
  bytesVariable: string
}

/**
 * Checks the file's totals once `delta` is applied (the caller holds the file's lock), then applies
 * it. Throws, before anything is counted, when the change would take the file past a cap it grows.
 */
export async function checkAndAddToItemTotals(
  db: Executor,
  fileId: string,
  noun: string,
  caps: ItemCaps,
  delta: ItemTotals,
): Promise<void> {
  const totals = await readItemTotals(db, fileId, noun)
  const items = totals.items + delta.items
  const bytes = totals.bytes + delta.bytes
  if (delta.items > 0 && items > caps.maxItems) {
    throw new AppError(
      'FILE_ITEMS_LIMIT_REACHED',
      `This file holds ${totals.items} ${noun}s; the limit is ${caps.maxItems} (${caps.itemsVariable}). ` +
        `Delete one first.`,
    )
  }
  if (delta.bytes > 0 && bytes > caps.maxBytes) {
    throw new AppError(
      'FILE_ITEMS_TOO_LARGE',
      `This file would hold ${bytes} bytes of ${noun}s; the limit is ${caps.maxBytes} (${caps.bytesVariable}).`,
    )
  }
  await addToItemTotals(db, fileId, noun, delta)
}
