import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // Epoch ms before which the account's auth tokens are refused (TOKEN_REVOKED): set by a password
    // change or reset and by disabling. 0 = never revoked. An update of the row notifies every
    // process's cache of it (migration 0016), so all of them refuse at once.
    await db.schema
      .alterTable('accounts')
      .addColumn('tokens_valid_after', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute()
  },
}
