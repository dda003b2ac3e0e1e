// Items that live on a file and carry access lists of their own (annotations, configurations): the
// one create/list/update/delete skeleton they share. The file role comes first (no access to the
// file: 404; viewer: 403 on changes), then the item's own lists; every change runs in one
// transaction with its event. A kind brings what differs (kind.ts): its record, its rights and its
// rows (its module's repository, which alone names its table).
//
// Caps (totals.ts): a file holds at most so many items of a kind and so many bytes of them.
// Every change takes the file's lock (the files module's lockFile) before counting: a create first thing, an update
// or delete after its item's own lock (item lock, then file lock: nothing takes them the other way
// round), and before it writes any row, so a file deletion (file lock, then its rows) never waits
// on a row an item writer holds.
import { type EventName, isEventName } from '../../contract/index.ts'
import { emitEvent } from '../../events/index.ts'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource, type Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { InCommit } from '../../platform/idempotency.ts'
import { newId } from '../../platform/ids.ts'
import { type FileAccess, fileReaders, lockFile, requireFileAccess } from '../files/index.ts'
import type { ItemViewer } from './access-lists.ts'
import * as accessLists from './access-lists.ts'
import type { FileItemKind, ItemCaller, ItemEdit, ItemRights, ItemRow } from './kind.ts'
import { decodeItemCursor, type ItemPage, readItemPage } from './pages.ts'
import { addToItemTotals } from './repository.ts'
import { checkAndAddToItemTotals } from './totals.ts'

function itemViewer(caller: ItemCaller, access: FileAccess): ItemViewer {
  return { accountId: caller.accountId, email: caller.email, isOwner: access.role === 'owner' }
}

function eventOf(noun: string, change: 'created' | 'updated' | 'removed'): EventName {
  const event = `${noun}_${change}`
  if (!isEventName(event)) throw new Error(`no event ${event}`)
  return event
}

interface Loaded<Row extends ItemRow, Item, Rights> {
  row: Row
  access: FileAccess
  item: Item
  rights: Rights
}

export class FileItems<
  Row extends ItemRow,
  Item extends { __v: number },
  Rights extends ItemRights,
  New,
  Changes,
> {
  readonly #kind: FileItemKind<Row, Item, Rights, New, Changes>

  constructor(kind: FileItemKind<Row, Item, Rights, New, Changes>) {
    this.#kind = kind
  }

  /** Creates an item on a file the caller may write (owner or editor), from the row `newRow` builds. */
  create(
    ctx: AppContext,
    caller: ItemCaller,
    fileId: string,
    newRow: (id: string, now: number) => New,
    inCommit?: InCommit<Item>,
  ): Promise<Item> {
    return this.#transaction(ctx, inCommit, (tx) => this.createIn(ctx, tx, caller, fileId, newRow))
  }

  /** `create` inside the caller's transaction `tx` (an import that creates many items at once). */
  async createIn(
    ctx: AppContext,
    tx: Tx,
    caller: ItemCaller,
    fileId: string,
    newRow: (id: string, now: number) => New,
  ): Promise<Item> {
    const kind = this.#kind
    // The lock first: the file cannot go meanwhile, and creators count one after another.
    await lockFile(ctx.db, tx, fileId)
    const access = await requireFileAccess(tx, caller.accountId, fileId, 'write')
    const now = Date.now()
    const id = newId(now)
    await kind.rows.insert(tx, newRow(id, now))
    const row = await kind.rows.find(tx, id)
    if (!row) throw new Error(`${kind.noun} vanished after insert`)
    // A refusal rolls the insert back: nothing is stored, no event.
    const grows = { items: 1, bytes: kind.rows.bytesOf(row) }
    await checkAndAddToItemTotals(tx, fileId, kind.noun, kind.caps(ctx.config), grows)
    const item = kind.toItem(row)
    await this.#emit(ctx, tx, 'created', {
      access,
      row,
      versions: [item],
      data: kind.inEvent.created(item),
    })
    return item
  }

  /**
   * Changes an item: `check` may refuse the input against the stored item, then `version`, if
   * given, must be the stored revision, and `plan` works the change out. An unchanged item answers
   * as it is.
   */
  update(
    ctx: AppContext,
    caller: ItemCaller,
    id: string,
    change: {
      version: number | undefined
      check?(item: Item): void
      /** `row` and `who` (the caller, `isOwner` of the file) for changes that depend on them. */
      plan(item: Item, row: Row, who: ItemViewer): ItemEdit<Rights, Changes>
    },
    inCommit?: InCommit<Item>,
  ): Promise<Item> {
    const { version } = change
    const kind = this.#kind
    return this.#transaction(ctx, inCommit, async (tx) => {
      // Serializes writers of one item so that `old` in the event is what `new` replaced.
      await lockResource(ctx.db, tx, `tessera.${kind.noun}.${id}`)
      await this.#lockFileOf(ctx, tx, id)
      const { row, access, item, rights } = await this.#loadForChange(tx, caller, id)
      change.check?.(item)
      if (version !== undefined && version !== item.__v) {
        throw new AppError('CONFLICT', `The ${kind.noun} is at revision ${item.__v}, not ${version}.`)
      }
      const edit = change.plan(item, row, itemViewer(caller, access))
      if (edit.unchanged) return this.#shown(item, rights)
      this.#requireWrite(rights)
      edit.authorize?.(rights)
      if (edit.listsChanged && !rights.privileged) {
        throw new AppError(
          'FORBIDDEN',
          `Only the ${kind.noun}'s author and the file's owner may change its permissions.`,
        )
      }
      if (!(await kind.rows.updateAt(tx, id, item.__v, edit.columns()))) {
        throw new AppError('CONFLICT', `The ${kind.noun} changed meanwhile; read it again.`)
      }
      const updatedRow = await kind.rows.find(tx, id)
      if (!updatedRow) throw new Error(`${kind.noun} vanished after update`)
      const grows = { items: 0, bytes: kind.rows.bytesOf(updatedRow) - kind.rows.bytesOf(row) }
      await checkAndAddToItemTotals(tx, row.file_id, kind.noun, kind.caps(ctx.config), grows)
      const updated = kind.toItem(updatedRow)
      const data = { old: kind.inEvent.updated(item), new: kind.inEvent.updated(updated) }
      await this.#emit(ctx, tx, 'updated', { access, row, versions: [item, updated], data })
      return this.#shown(updated, kind.rightsOf(updated, row.author_id, itemViewer(caller, access)))
    })
  }

  /** Deletes an item; answers it as it was. */
  remove(ctx: AppContext, caller: ItemCaller, id: string): Promise<Item> {
    const kind = this.#kind
    return ctx.db.kysely.transaction().execute(async (tx) => {
      await lockResource(ctx.db, tx, `tessera.${kind.noun}.${id}`)
      await this.#lockFileOf(ctx, tx, id)
      const { row, access, item, rights } = await this.#loadForChange(tx, caller, id)
      this.#requireWrite(rights)
      kind.authorizeDelete?.(rights)
      kind.refuseRemove?.(row, caller)
      await kind.rows.remove(tx, id)
      await addToItemTotals(tx, row.file_id, kind.noun, { items: -1, bytes: -kind.rows.bytesOf(row) })
      await this.#emit(ctx, tx, 'removed', { access, row, versions: [item], data: item })
      return this.#shown(item, rights)
    })
  }

  /**
   * One page of the items of a file the caller may see, oldest first, as shown to them (see
   * pages.ts), after the item of `cursor` if given. `limit` is capped at
   * TESSERA_ITEM_PAGE_MAX_ITEMS, which is also the page size without it.
   */
  async list(
    ctx: AppContext,
    caller: ItemCaller,
    fileId: string,
    paging: { limit?: number; cursor?: string } = {},
  ): Promise<ItemPage<Item>> {
    const db = ctx.db.kysely
    const access = await requireFileAccess(db, caller.accountId, fileId, 'read')
    const afterId = paging.cursor === undefined ? undefined : decodeItemCursor(paging.cursor)
    const { itemPageMaxItems: max, itemPageMaxBytes: maxBytes } = ctx.config
    const maxItems = Math.min(paging.limit ?? max, max)
    const who = itemViewer(caller, access)
    const guest = access.role === 'link'
    return readItemPage(db, fileId, this.#kind.rows, { afterId, maxItems, maxBytes }, (row) => {
      const item = this.#kind.toItem(row)
      const rights = this.#kind.rightsOf(item, row.author_id, who)
      if (!rights.read) return undefined
      const shown = this.#shown(item, rights)
      return guest ? accessLists.forGuest(shown) : shown
    })
  }

  /** Runs `change` in a transaction whose last step is `inCommit` with the item it answers. */
  #transaction(ctx: AppContext, inCommit: InCommit<Item> | undefined, change: (tx: Tx) => Promise<Item>) {
    return ctx.db.kysely.transaction().execute(async (tx) => {
      const answered = await change(tx)
      await inCommit?.(tx, answered)
      return answered
    })
  }

  /** Takes the lock of the item's file (see the top of this file); an unknown item is left to #loadForChange. */
  async #lockFileOf(ctx: AppContext, tx: Tx, id: string): Promise<void> {
    const row = await this.#kind.rows.find(tx, id)
    if (row) await lockFile(ctx.db, tx, row.file_id)
  }

  #shown(item: Item, rights: Rights): Item {
    return this.#kind.shown ? this.#kind.shown(item, rights) : item
  }

  #requireWrite(rights: Rights): void {
    if (!rights.write) {
      throw new AppError('FORBIDDEN', `The ${this.#kind.noun}'s writePermissions do not include you.`)
    }
  }

  /**
   * The item, the caller's access to its file and their rights on it, for a change: 404 when either
   * is out of the caller's sight (an item they may not see does not exist for them), 403 for a viewer.
   */
  async #loadForChange(db: Executor, caller: ItemCaller, id: string): Promise<Loaded<Row, Item, Rights>> {
    const kind = this.#kind
    const notFound = () => new AppError('NOT_FOUND', `No ${kind.noun} ${id}.`)
    const row = await kind.rows.find(db, id)
    if (!row) throw notFound()
    let access: FileAccess
    try {
      access = await requireFileAccess(db, caller.accountId, row.file_id, 'read')
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') throw notFound()
      throw error
    }
    const item = kind.toItem(row)
    const rights = kind.rightsOf(item, row.author_id, itemViewer(caller, access))
    if (!rights.read) throw notFound()
    if (access.role === 'viewer') {
      throw new AppError(
        'FORBIDDEN',
        `Your role on this file (viewer) does not allow changing ${kind.noun}s.`,
      )
    }
    return { row, access, item, rights }
  }

  /**
   * Emits an event about the item to the webhooks of the file's owner and of those readers of the
   * file who may hear about every one of `versions` (before and after, for an update).
   */
  async #emit(
    ctx: AppContext,
    tx: Tx,
    change: 'created' | 'updated' | 'removed',
    about: { access: FileAccess; row: Row; versions: Item[]; data: unknown },
  ): Promise<void> {
    const { row, versions } = about
    const readers = await fileReaders(tx, row.file_id)
    const audience = readers.filter((reader) => {
      const who = { accountId: reader.account_id, email: reader.email, isOwner: false }
      return versions.every((item) => this.#kind.rightsOf(item, row.author_id, who).hears)
    })
    await emitEvent(ctx, tx, {
      event: eventOf(this.#kind.noun, change),
      fileId: row.file_id,
      fileOwnerId: about.access.file.owner_id,
      readerAccountIds: audience.map((reader) => reader.account_id),
      data: about.data,
    })
  }
}
