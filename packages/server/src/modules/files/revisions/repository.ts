// SQL of the revision history (the `file_revisions` table; see service.ts).
import type { Insertable } from 'kysely'
import type { Executor } from '../../../platform/db/index.ts'
import type { FileRevisionsTable } from '../tables.ts'

/** What the revision history keeps of the revision an upload is about to replace, read under the file's lock. */
export function findCurrentRevision(db: Executor, fileId: string) {
  return db
    .selectFrom('files')
    .select([
      'id',
      'name',
      'size',
      'sha256',
      'blob_key',
      'user_id',
      'revision_date',
      'version',
      'revision_number',
      'updated_at',
    ])
    .where('id', '=', fileId)
    .executeTakeFirst()
}

export function insertRevision(db: Executor, row: Insertable<FileRevisionsTable>): Promise<unknown> {
  return db.insertInto('file_revisions').values(row).execute()
}

/** A revision being dropped: its blob goes first, then its row. */
export interface PrunedRevision {
  file_id: string
  version: number
  blob_key: string
}

const PRUNED_COLUMNS = ['file_id', 'version', 'blob_key'] as const

/** Marks every listed revision of the file past the newest `keep` as pruned; answers those. */
export function pruneRevisionsPast(
  db: Executor,
  fileId: string,
  keep: number,
  now: number,
): Promise<PrunedRevision[]> {
  return db
    .updateTable('file_revisions')
    .set({ pruned_at: now })
    .where('file_id', '=', fileId)
    .where('pruned_at', 'is', null)
    .where('version', 'not in', (eb) =>
      eb
        .selectFrom('file_revisions as kept')
        .select('kept.version')
        .where('kept.file_id', '=', fileId)
        .where('kept.pruned_at', 'is', null)
        .orderBy('kept.version', 'desc')
        .limit(keep),
    )
    .returning(PRUNED_COLUMNS)
    .execute()
}

/** Marks all revisions of a file as pruned (the file is being deleted); answers them. */
export function pruneAllRevisions(db: Executor, fileId: string, now: number): Promise<PrunedRevision[]> {
  return db
    .updateTable('file_revisions')
    .set({ pruned_at: now })
    .where('file_id', '=', fileId)
    .returning(PRUNED_COLUMNS)
    .execute()
}

/** Removes a pruned revision's row (once its blob is gone). */
export function deletePrunedRevision(db: Executor, revision: PrunedRevision): Promise<unknown> {
  return db
    .deleteFrom('file_revisions')
    .where('file_id', '=', revision.file_id)
    .where('version', '=', revision.version)
    .where('pruned_at', 'is not', null)
    .execute()
}

/** Pruned revisions whose removal did not finish (a crash, a failing store), in key order. */
export function listPrunedRevisions(db: Executor, limit: number): Promise<PrunedRevision[]> {
  return db
    .selectFrom('file_revisions')
    .select(PRUNED_COLUMNS)
    .where('pruned_at', 'is not', null)
    .orderBy('file_id')
    .orderBy('version')
    .limit(limit)
    .execute()
}

/** The kept earlier revisions of a file, newest first, with the uploader's e-mail. */
export function listRevisions(db: Executor, fileId: string) {
  return db
    .selectFrom('file_revisions')
    .innerJoin('accounts', 'accounts.id', 'file_revisions.uploaded_by')
    .select([
      'file_revisions.version',
      'file_revisions.name',
      'file_revisions.size',
      'file_revisions.sha256',
      'file_revisions.revision_date',
      'file_revisions.revision_number',
      'accounts.email as uploaded_by_email',
    ])
    .where('file_revisions.file_id', '=', fileId)
    .where('file_revisions.pruned_at', 'is', null)
    .orderBy('file_revisions.version', 'desc')
    .execute()
}

/** One kept earlier revision (not a pruned one: its blob may already be gone). */
export function findRevision(db: Executor, fileId: string, version: number) {
  return db
    .selectFrom('file_revisions')
    .select(['name', 'size', 'sha256', 'blob_key'])
    .where('file_id', '=', fileId)
    .where('version', '=', version)
    .where('pruned_at', 'is', null)
    .executeTakeFirst()
}

export type CurrentRevision = NonNullable<Awaited<ReturnType<typeof findCurrentRevision>>>
