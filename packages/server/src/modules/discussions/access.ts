// Who may read and write an annotation's discussion. The file role comes first (no access to the
// file: 404), then the annotation's own lists (hidden by readPermissions: 404), then its
// `permissions.readDiscussion` (to read the thread) and `permissions.writeDiscussion` (to reply).
// Lists hold e-mails or "*"; an empty list restricts nothing (file-items/acl.ts). The annotation's
// author and the file's owner always may. Replying is commenting: a viewer of the file may reply
// when writeDiscussion lets them, as an editor may (the role gates changing the annotation, not
// talking about it). Editing a reply is its author's; deleting it its author's or the file owner's
// (moderation).
import type { AnnotationPermissionsShape } from '../../contract/index.ts'
import { accessLists } from '../file-items/index.ts'
import type { FileRole } from '../files/index.ts'
import type { AnnotationAccessRow } from './repository.ts'

type DiscussionLists = Pick<AnnotationPermissionsShape, 'readDiscussion' | 'writeDiscussion'>

export interface DiscussionRights {
  /** May see the annotation at all (else it does not exist for them: 404). */
  seesAnnotation: boolean
  read: boolean
  write: boolean
  /** The file's owner: may delete any reply. */
  fileOwner: boolean
}

function discussionLists(row: AnnotationAccessRow): DiscussionLists {
  const stored = JSON.parse(row.permissions) as Partial<DiscussionLists>
  return { readDiscussion: stored.readDiscussion ?? [], writeDiscussion: stored.writeDiscussion ?? [] }
}

/** What an account with access to the annotation's file may do with its discussion. */
export function discussionRights(row: AnnotationAccessRow, who: accessLists.ItemViewer): DiscussionRights {
  const rights = accessLists.rights(accessLists.fromRow(row), row.author_id, who)
  const lists = discussionLists(row)
  const read = rights.read && rights.allows(lists.readDiscussion)
  return {
    seesAnnotation: rights.read,
    read,
    write: read && rights.allows(lists.writeDiscussion),
    fileOwner: who.isOwner,
  }
}

const readableByAnyone = (list: readonly string[]) => list.length === 0 || list.includes('*')

/**
 * The rule for a visitor of a share link (a link session, no account, no e-mail): they read the
 * discussion only when the annotation and its thread are open to everyone with access to the file —
 * readPermissions and readDiscussion each empty or holding "*" — and never write (the write routes
 * take no link session at all: modules/sessions/authenticate.ts).
 */
export function linkGuestDiscussionRights(row: AnnotationAccessRow): DiscussionRights {
  const lists = accessLists.fromRow(row)
  const seesAnnotation = readableByAnyone(lists.readPermissions)
  const read = seesAnnotation && readableByAnyone(discussionLists(row).readDiscussion)
  return { seesAnnotation, read, write: false, fileOwner: false }
}

/** The rights of whoever calls with `role` on the annotation's file: an account, or a link's guest. */
export function callerDiscussionRights(
  row: AnnotationAccessRow,
  caller: { accountId: string; email: string },
  role: FileRole,
): DiscussionRights {
  if (role === 'link') return linkGuestDiscussionRights(row)
  return discussionRights(row, {
    accountId: caller.accountId,
    email: caller.email,
    isOwner: role === 'owner',
  })
}
