// SQL of modules/bcf: the bcf_origins rows of a file (tables.ts).
import type { Insertable, Selectable } from 'kysely'
import type { Executor } from '../../platform/db/index.ts'
import type { BcfOriginsTable } from './tables.ts'

export type OriginRow = Selectable<BcfOriginsTable>

export function originsOfFile(db: Executor, fileId: string): Promise<OriginRow[]> {
  return db.selectFrom('bcf_origins').selectAll().where('file_id', '=', fileId).execute()
}

export async function insertOrigins(db: Executor, rows: Insertable<BcfOriginsTable>[]): Promise<void> {
  // 7 columns a row: 500 rows stay far below SQLite's 32,766 parameters.
  for (let i = 0; i < rows.length; i += 500) {
    // A GUID the file already has (a BCF that reuses one, or names it twice) keeps its first record:
    // the later one is still imported, and exported under a GUID of its own (guids.ts).
    await db
      .insertInto('bcf_origins')
      .values(rows.slice(i, i + 500))
      .onConflict((conflict) => conflict.columns(['file_id', 'guid']).doNothing())
      .execute()
  }
}
