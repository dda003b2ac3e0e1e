// What a kind of file item (annotations, configurations) brings to the skeleton of service.ts: its
// record, its rights, its caps and its rows. The kind's module owns its table: the skeleton reaches
// the rows only through the ItemRows adapter (the module's repository.ts) and never names a table.
import type { Config } from '../../platform/config.ts'
import type { Executor } from '../../platform/db/index.ts'
import type { ItemViewer } from './access-lists.ts'
import type { PagedRows } from './pages.ts'
import type { ItemCaps } from './totals.ts'

/** Who acts on an item. */
export interface ItemCaller {
  accountId: string
  email: string
}

/** What a viewer may do with an item by its lists (the file role is checked separately). */
export interface ItemRights {
  /** The item's author or the file's owner: every right, and the only ones to change the lists. */
  privileged: boolean
  read: boolean
  write: boolean
  /** May their webhooks hear about this version of the item (none learns what its owner may not see)? */
  hears: boolean
}

/** The columns the skeleton reads of an item's row. */
export interface ItemRow {
  id: string
  file_id: string
  author_id: string
}

/**
 * An item table's SQL, as its module's repository.ts gives it: `New` is the row an insert takes,
 * `Changes` the columns an update sets.
 */
interface ItemRows<Row extends ItemRow, New, Changes> extends PagedRows<Row> {
  find(db: Executor, id: string): Promise<Row | undefined>
  insert(db: Executor, row: New): Promise<unknown>
  /** Applies `changes` if the row is still at `version` (and counts it up); false when it moved on. */
  updateAt(db: Executor, id: string, version: number, changes: Changes): Promise<boolean>
  remove(db: Executor, id: string): Promise<void>
}

export interface FileItemKind<Row extends ItemRow, Item, Rights, New, Changes> {
  /** What the item is called in messages, lock names, totals and events (`<noun>_created`, …). */
  noun: string
  rows: ItemRows<Row, New, Changes>
  /** The kind's per-file caps, from the configuration. */
  caps(config: Config): ItemCaps
  toItem(row: Row): Item
  rightsOf(item: Item, authorId: string, who: ItemViewer): Rights
  /** The item as HTTP answers show it to a viewer with `rights` (default: as it is). */
  shown?(item: Item, rights: Rights): Item
  /** The item as the data of its _created event and as each side of its _updated event. */
  inEvent: { created(item: Item): unknown; updated(item: Item): unknown }
  /** Throws when `rights` do not allow deleting, beyond writePermissions. */
  authorizeDelete?(rights: Rights): void
  /** Throws when the row's state refuses this caller's delete (a configuration locked by another). */
  refuseRemove?(row: Row, caller: ItemCaller): void
}

/** A change worked out against the stored item, before any permission check. */
export interface ItemEdit<Rights, Changes> {
  /** Nothing differs from what is stored: no new revision, no event. */
  unchanged: boolean
  /** The access lists themselves change (only privileged viewers may). */
  listsChanged: boolean
  /** Throws when `rights` do not allow this change, beyond writePermissions. */
  authorize?(rights: Rights): void
  /** The columns to store, once every check passed. */
  columns(): Changes
}
