import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

// Listings page a directory in name order (`parent = ? and name > ? order by name limit ?`): with
// the name in the index, a page is one index range, not a sort of the whole directory. The old
// (owner_id, parent) index is a prefix of the new one, so it goes.
export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createIndex('files_owner_parent_name_idx')
      .on('files')
      .columns(['owner_id', 'parent', 'name'])
      .execute()
    await db.schema.dropIndex('files_owner_parent_idx').execute()
  },
}
