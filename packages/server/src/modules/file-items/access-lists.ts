// The two access lists every file item carries (annotations, configurations; acl.ts says what an
// entry means): how a row stores them, how a create or an update sets them, and the rights they give.
// Meant to be imported as a namespace: `accessLists.fromRow(row)`.
import { listAllows, normalizeAccessList } from './acl.ts'

export interface AccessLists {
  readPermissions: string[]
  writePermissions: string[]
}

interface AccessListColumns {
  read_permissions: string
  write_permissions: string
}

/** Whom an item's access lists are checked for. */
export interface ItemViewer {
  accountId: string
  email: string
  /** The file's owner (who, like the item's author, has every right). */
  isOwner: boolean
}

export function fromRow(row: AccessListColumns): AccessLists {
  return {
    readPermissions: JSON.parse(row.read_permissions) as string[],
    writePermissions: JSON.parse(row.write_permissions) as string[],
  }
}

export function toColumns(lists: AccessLists): AccessListColumns {
  return {
    read_permissions: JSON.stringify(lists.readPermissions),
    write_permissions: JSON.stringify(lists.writePermissions),
  }
}

/** The lists given (normalised) replace the current ones; a create's current lists are empty. */
export function next(given: Partial<AccessLists>, current?: AccessLists): AccessLists {
  return {
    readPermissions: given.readPermissions
      ? normalizeAccessList(given.readPermissions)
      : (current?.readPermissions ?? []),
    writePermissions: given.writePermissions
      ? normalizeAccessList(given.writePermissions)
      : (current?.writePermissions ?? []),
  }
}

/** What `who` may do with an item by its lists: its author and the file's owner everything. */
export function rights(lists: AccessLists, authorId: string, who: ItemViewer) {
  const privileged = who.isOwner || who.accountId === authorId
  const allows = (list: readonly string[]) => privileged || listAllows(list, who.email)
  const read = allows(lists.readPermissions)
  return { privileged, allows, read, write: read && allows(lists.writePermissions) }
}

const keepEveryone = (list: unknown) => (Array.isArray(list) ? list.filter((entry) => entry === '*') : list)

/**
 * An item as a link's guest sees it: every access list keeps only "*" — the e-mails a list names
 * are whom else the file is shared with, which a guest is not to know (docs/api.md, "Links").
 * Lists at the top (`readPermissions`, `writePermissions`) and inside `permissions` (an annotation's).
 */
export function forGuest<Item extends object>(item: Item): Item {
  const shown = { ...item } as Record<string, unknown>
  for (const key of ['readPermissions', 'writePermissions']) shown[key] = keepEveryone(shown[key])
  const permissions = shown.permissions
  if (permissions !== null && typeof permissions === 'object' && !Array.isArray(permissions)) {
    shown.permissions = Object.fromEntries(
      Object.entries(permissions).map(([key, list]) => [key, keepEveryone(list)]),
    )
  }
  return shown as Item
}
