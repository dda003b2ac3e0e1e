// SQL of the annotations module.
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type { AnnotationsTable } from '../../platform/db/schema.ts'

export type AnnotationRow = Selectable<AnnotationsTable> & { author_email: string }

function selectAnnotations(db: Executor) {
  return db
    .selectFrom('annotations')
    .innerJoin('accounts as author', 'author.id', 'annotations.author_id')
    .selectAll('annotations')
    .select('author.email as author_email')
}

export function findAnnotation(db: Executor, id: string): Promise<AnnotationRow | undefined> {
  return selectAnnotations(db).where('annotations.id', '=', id).executeTakeFirst()
}

export function listAnnotations(db: Executor, fileId: string): Promise<AnnotationRow[]> {
  return selectAnnotations(db).where('annotations.file_id', '=', fileId).orderBy('annotations.id').execute()
}

export function insertAnnotation(db: Executor, row: Insertable<AnnotationsTable>): Promise<unknown> {
  return db.insertInto('annotations').values(row).execute()
}

/** Applies the changes if the row is still at `version`; false when it moved on meanwhile. */
export async function updateAnnotation(
  db: Executor,
  id: string,
  version: number,
  changes: Updateable<AnnotationsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('annotations')
    .set({ ...changes, version: version + 1 })
    .where('id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deleteAnnotation(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('annotations').where('id', '=', id).execute()
}
