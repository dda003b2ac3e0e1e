// What the signed-in account may do on the open file, and on each of its annotations and saved
// views, so the screens offer only what the server will accept (and say why the rest is missing).
//
// The file's part comes from the server: `role` and `capabilities` on the file record. The item
// lists are checked here by the server's own rule (server: modules/file-items/acl.ts
// listAllows, modules/file-items/access-lists.ts rights, annotations/service.ts aspects), since an item record carries its
// lists but not the caller's rights: the item's author and the file's owner may do everything; anyone
// else needs each list that applies to be empty, to hold "*", or to hold their e-mail (lower-case).
import {
  type Annotation,
  type Configuration,
  client,
  type FileCapabilities,
  type FileRecord,
} from '../api/index.ts'

export interface FileAccess {
  capabilities: FileCapabilities
  /** Why the file's write actions are not offered, in words a user reads; '' when they are. */
  reason: string
  /** My e-mail, lower-case as the server stores list entries. */
  me: string
  isOwner: boolean
  /** Reading through a link: no account, so never writing (a reply included). */
  guest: boolean
}

const NOTHING: FileCapabilities = {
  read: false,
  setAttributes: false,
  annotate: false,
  saveViews: false,
  share: false,
  uploadRevision: false,
  delete: false,
}

/** The file's access for me; until the file is read, nothing is offered. */
export function accessOf(file: FileRecord | null): FileAccess {
  const me = (client.session.identity?.email ?? '').toLowerCase()
  if (!file)
    return {
      capabilities: NOTHING,
      reason: 'Checking what you may do with this file…',
      me,
      isOwner: false,
      guest: false,
    }
  const reason = file.isLink
    ? 'View only — you are viewing through a link.'
    : file.role === 'viewer'
      ? `View only — shared with you as viewer by ${file.owner}.`
      : ''
  return { capabilities: file.capabilities, reason, me, isOwner: file.role === 'owner', guest: file.isLink }
}

/** The server's listAllows, bypassed by the author and the file's owner. */
function listCheck(access: FileAccess, author: string) {
  const privileged = access.isOwner || author.toLowerCase() === access.me
  return (list: readonly string[]) =>
    privileged || list.length === 0 || list.some((entry) => entry === '*' || entry === access.me)
}

export interface AnnotationRights {
  editTitle: boolean
  editText: boolean
  delete: boolean
  /** Why Edit or Delete is missing; '' when both are offered. */
  reason: string
}

/** What I may change of an annotation: its writePermissions, then writeTitle/writeDescription/delete. */
export function annotationRights(a: Annotation, access: FileAccess): AnnotationRights {
  if (!access.capabilities.annotate)
    return { editTitle: false, editText: false, delete: false, reason: access.reason }
  const allows = listCheck(access, a.author)
  if (!(allows(a.readPermissions) && allows(a.writePermissions))) {
    return {
      editTitle: false,
      editText: false,
      delete: false,
      reason: 'Read only: you are not in its write list.',
    }
  }
  const rights = {
    editTitle: allows(a.permissions.writeTitle),
    editText: allows(a.permissions.writeDescription),
    delete: allows(a.permissions.delete),
  }
  const missing = [
    rights.editTitle ? '' : 'title',
    rights.editText ? '' : 'text',
    rights.delete ? '' : 'deleting',
  ].filter(Boolean)
  const reason = missing.length === 0 ? '' : `Its permissions do not let you change: ${missing.join(', ')}.`
  return { ...rights, reason }
}

/** Whether I may delete (or change) a saved view: its writePermissions. */
export function viewWritable(v: Configuration, access: FileAccess): boolean {
  if (!access.capabilities.saveViews) return false
  const allows = listCheck(access, v.author)
  return allows(v.readPermissions) && allows(v.writePermissions)
}

export interface DiscussionRights {
  read: boolean
  /** May reply (viewers too: replying is commenting). */
  write: boolean
  /** The file's owner: may delete any reply (moderation). */
  moderate: boolean
}

/**
 * What I may do with an annotation's discussion (server: modules/discussions/access.ts): read it
 * when its readDiscussion allows me, reply when writeDiscussion does too, whatever my file role.
 */
export function discussionRights(a: Annotation, access: FileAccess): DiscussionRights {
  const allows = listCheck(access, a.author)
  const read = allows(a.readPermissions) && allows(a.permissions.readDiscussion)
  const write = read && !access.guest && allows(a.permissions.writeDiscussion)
  return { read, write, moderate: access.isOwner }
}
