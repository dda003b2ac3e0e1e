// SQL of the files module.
import type { Executor } from '../../platform/db/index.ts'

/** A file row with the e-mails of its owner and of the uploader of the current revision. */
export function listDirectory(db: Executor, ownerId: string, parent: string) {
  return db
    .selectFrom('files')
    .innerJoin('accounts as owner', 'owner.id', 'files.owner_id')
    .innerJoin('accounts as uploader', 'uploader.id', 'files.user_id')
    .selectAll('files')
    .select(['owner.email as owner_email', 'uploader.email as user_email'])
    .where('files.owner_id', '=', ownerId)
    .where('files.parent', '=', parent)
    .orderBy('files.name')
    .execute()
}

export type FileRowWithEmails = Awaited<ReturnType<typeof listDirectory>>[number]
