// SQL of the configurations module.
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type { ConfigurationsTable } from '../../platform/db/schema.ts'

export type ConfigurationRow = Selectable<ConfigurationsTable> & {
  author_email: string
  last_modification_author_email: string | null
}

function selectConfigurations(db: Executor) {
  return db
    .selectFrom('configurations')
    .innerJoin('accounts as author', 'author.id', 'configurations.author_id')
    .leftJoin('accounts as modifier', 'modifier.id', 'configurations.last_modification_author_id')
    .selectAll('configurations')
    .select(['author.email as author_email', 'modifier.email as last_modification_author_email'])
}

export function findConfiguration(db: Executor, id: string): Promise<ConfigurationRow | undefined> {
  return selectConfigurations(db).where('configurations.id', '=', id).executeTakeFirst()
}

export function listConfigurations(db: Executor, fileId: string): Promise<ConfigurationRow[]> {
  return selectConfigurations(db)
    .where('configurations.file_id', '=', fileId)
    .orderBy('configurations.id')
    .execute()
}

export function insertConfiguration(db: Executor, row: Insertable<ConfigurationsTable>): Promise<unknown> {
  return db.insertInto('configurations').values(row).execute()
}

/** Applies the changes if the row is still at `version`; false when it moved on meanwhile. */
export async function updateConfiguration(
  db: Executor,
  id: string,
  version: number,
  changes: Updateable<ConfigurationsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('configurations')
    .set({ ...changes, version: version + 1 })
    .where('id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deleteConfiguration(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('configurations').where('id', '=', id).execute()
}
