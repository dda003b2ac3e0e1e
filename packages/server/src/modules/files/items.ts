// Items that live on a file and carry access lists of their own (annotations, configurations): how
// a caller reaches one to change it, and which readers of the file may hear about it. The file role
// comes first (no access to the file: 404; viewer: 403 on changes), then the item's own lists.
import type { AppContext } from '../../platform/context.ts'
import type { Executor, Tx } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { type EventName, emitEvent } from '../webhooks/index.ts'
import { type FileAccess, fileReaders, requireFileAccess } from './access.ts'

/** Whom an item's access lists are checked for. */
export interface ItemViewer {
  accountId: string
  email: string
  /** The file's owner (who, like the item's author, has every right). */
  isOwner: boolean
}

export interface FileItemKind<Row extends { file_id: string; author_id: string }, Item> {
  /** What the item is called in messages: 'annotation', 'configuration'. */
  noun: string
  find(db: Executor, id: string): Promise<Row | undefined>
  toItem(row: Row): Item
  /** May `who` see the item at all? */
  visible(item: Item, authorId: string, who: ItemViewer): boolean
  /** May `who`'s webhooks hear about this version of the item? */
  hears(item: Item, authorId: string, who: ItemViewer): boolean
}

export function itemViewer(caller: { accountId: string; email: string }, access: FileAccess): ItemViewer {
  return { accountId: caller.accountId, email: caller.email, isOwner: access.role === 'owner' }
}

/**
 * The item and the caller's access to its file, for a change: 404 when either is out of the
 * caller's sight (an item they may not see does not exist for them), 403 for a viewer of the file.
 */
export async function loadItemForChange<Row extends { file_id: string; author_id: string }, Item>(
  db: Executor,
  kind: FileItemKind<Row, Item>,
  caller: { accountId: string; email: string },
  id: string,
): Promise<{ row: Row; access: FileAccess; item: Item }> {
  const notFound = () => new AppError('NOT_FOUND', `No ${kind.noun} ${id}.`)
  const row = await kind.find(db, id)
  if (!row) throw notFound()
  let access: FileAccess
  try {
    access = await requireFileAccess(db, caller.accountId, row.file_id, 'read')
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw notFound()
    throw error
  }
  const item = kind.toItem(row)
  if (!kind.visible(item, row.author_id, itemViewer(caller, access))) throw notFound()
  if (access.role === 'viewer') {
    throw new AppError('FORBIDDEN', `Your role on this file (viewer) does not allow changing ${kind.noun}s.`)
  }
  return { row, access, item }
}

/**
 * Emits an event about the item to the webhooks of the file's owner and of those readers of the
 * file who may hear about every one of `versions` (before and after, for an update): no webhook
 * learns what its owner may not see.
 */
export async function emitItemEvent<Row extends { file_id: string; author_id: string }, Item>(
  ctx: AppContext,
  tx: Tx,
  kind: FileItemKind<Row, Item>,
  change: { event: EventName; access: FileAccess; row: Row; versions: Item[]; data: unknown },
): Promise<void> {
  const { row, versions } = change
  const readers = await fileReaders(tx, row.file_id)
  const audience = readers.filter((reader) => {
    const who = { accountId: reader.account_id, email: reader.email, isOwner: false }
    return versions.every((item) => kind.hears(item, row.author_id, who))
  })
  await emitEvent(ctx, tx, {
    event: change.event,
    fileId: row.file_id,
    fileOwnerId: change.access.file.owner_id,
    readerAccountIds: audience.map((reader) => reader.account_id),
    data: change.data,
  })
}
