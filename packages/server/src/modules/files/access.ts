// Who may do what with a file. Owner: everything. Editor (shared with role "editor"): read, and
// write attributes, annotations and configurations. Viewer: read. Anyone else: the file does not
// exist for them (404), so IDs never reveal another account's data. A reader asking to write gets
// 403: they can already see the file. A link session (modules/links) comes as a link reader ID
// (platform/ids.ts): role `link`, reads of its one file only (any other file: 404), every write 403
// LINK_READ_ONLY.
import type { Executor } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { linkReaderOf } from '../../platform/ids.ts'
import { findFileForAccount, findFileWithEmails, listShares } from './repository.ts'

export type FileRole = 'owner' | 'editor' | 'viewer' | 'link'
export type FileNeed = 'read' | 'write' | 'owner'

const ALLOWED: Record<FileNeed, readonly FileRole[]> = {
  read: ['owner', 'editor', 'viewer', 'link'],
  write: ['owner', 'editor'],
  owner: ['owner'],
}

type AccessibleFile = NonNullable<Awaited<ReturnType<typeof findFileForAccount>>>

export interface FileAccess {
  file: AccessibleFile
  role: FileRole
}

/** How the file is read for an account: the row, or a kept copy of it (listing/store.ts fileForReader). */
type FindFile = (db: Executor, fileId: string, accountId: string) => Promise<AccessibleFile | undefined>

export async function requireFileAccess(
  db: Executor,
  accountId: string,
  fileId: string,
  need: FileNeed,
  find: FindFile = findFileForAccount,
): Promise<FileAccess> {
  const link = linkReaderOf(accountId)
  if (link) return linkAccess(db, link.fileId, fileId, need)
  const file = /^[0-9a-f]{24}$/.test(fileId) ? await find(db, fileId, accountId) : undefined
  if (!file) throw new AppError('NOT_FOUND', `No file ${fileId}.`)
  const role = roleOf(file, accountId)
  if (!ALLOWED[need].includes(role)) {
    throw new AppError('FORBIDDEN', `Your role on this file (${role}) does not allow this.`)
  }
  return { file, role }
}

async function linkAccess(
  db: Executor,
  linkedFileId: string,
  fileId: string,
  need: FileNeed,
): Promise<FileAccess> {
  const file = linkedFileId === fileId ? await findFileWithEmails(db, fileId) : undefined
  if (!file) throw new AppError('NOT_FOUND', `No file ${fileId}.`)
  if (need !== 'read') throw new AppError('LINK_READ_ONLY', 'A link gives read access only.')
  return { file, role: 'link' }
}

/** The role of `accountId` on a file row read for them (findFileForAccount: owner or sharee). */
export function roleOf(file: { owner_id: string; share_role: string | null }, accountId: string): FileRole {
  return file.owner_id === accountId ? 'owner' : file.share_role === 'editor' ? 'editor' : 'viewer'
}

/** Everyone who may read the file besides its owner (with e-mails and roles): event recipients. */
export function fileReaders(db: Executor, fileId: string) {
  return listShares(db, fileId)
}

/** The IDs of fileReaders: their webhooks hear about the file too. */
export async function fileReaderIds(db: Executor, fileId: string): Promise<string[]> {
  return (await fileReaders(db, fileId)).map((share) => share.account_id)
}
