// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('file_shares')
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_shares_pk', ['file_id', 'account_id'])
      .execute()
    await db.schema.createIndex('file_shares_account_idx').on('file_shares').columns(['account_id']).execute()
  },
}
