// SQL of the annotations module, its table's only reader and writer: the rows the file-items skeleton
// works on (its ItemRows), updates and deletes through platform/db/revised-rows.ts.
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import { deleteRow, updateRowAt } from '../../platform/db/revised-rows.ts'
import type { AnnotationsTable } from './tables.ts'

export type AnnotationRow = Selectable<AnnotationsTable> & { author_email: string }

function selectAnnotations(db: Executor) {
  return db
    .selectFrom('annotations')
    .innerJoin('accounts as author', 'author.id', 'annotations.author_id')
    .selectAll('annotations')
    .select('author.email as author_email')
}

export function find(db: Executor, id: string): Promise<AnnotationRow | undefined> {
  return selectAnnotations(db).where('annotations.id', '=', id).executeTakeFirst()
}

/** Up to `limit` of a file's annotations, oldest first, after the one with ID `afterId` if given. */
export function listAfter(
  db: Executor,
  fileId: string,
  afterId: string | undefined,
  limit: number,
): Promise<AnnotationRow[]> {
  let query = selectAnnotations(db).where('annotations.file_id', '=', fileId)
  if (afterId !== undefined) query = query.where('annotations.id', '>', afterId)
  return query.orderBy('annotations.id').limit(limit).execute()
}

// The text columns that count toward the per-file byte cap (the same list as migration 0015).
const BYTE_COLUMNS = [
  'name',
  'content',
  'color',
  'targets',
  'tags',
  'read_permissions',
  'write_permissions',
  'permissions',
] as const

/** UTF-8 bytes of the row's stored text and JSON. */
export function bytesOf(row: AnnotationRow): number {
  let bytes = 0
  for (const column of BYTE_COLUMNS) bytes += Buffer.byteLength(row[column] ?? '')
  return bytes
}

export function insert(db: Executor, row: Insertable<AnnotationsTable>): Promise<unknown> {
  return db.insertInto('annotations').values(row).execute()
}

/** Applies `changes` if the row is still at `version` (and counts it up); false when it moved on. */
export function updateAt(
  db: Executor,
  id: string,
  version: number,
  changes: Updateable<AnnotationsTable>,
): Promise<boolean> {
  return updateRowAt(db, 'annotations', id, version, changes)
}

export function remove(db: Executor, id: string): Promise<void> {
  return deleteRow(db, 'annotations', id)
}
