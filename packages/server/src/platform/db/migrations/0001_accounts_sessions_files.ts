// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('username', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('ends_at', 'bigint')
      .addColumn('superseded_at', 'bigint')
      .execute()
    await db.schema.createIndex('sessions_account_idx').on('sessions').columns(['account_id']).execute()
    await db.schema.createIndex('sessions_expires_idx').on('sessions').columns(['expires_at']).execute()

    await db.schema
      .createTable('login_failures')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('parent', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bucket', 'text', (c) => c.notNull())
      .addColumn('blob_key', 'text', (c) => c.notNull())
      .addColumn('share_token', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('is_link', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('allow_live_public_meetings', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('roles', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('attributes', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('scene_tree_names', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('scene_tree_roots', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('favorited_by', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('type', 'text', (c) => c.notNull().defaultTo('file'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('revision_date', 'bigint', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
      .addUniqueConstraint('files_owner_key_unique', ['owner_id', 'key'])
      .execute()
    await db.schema
      .createIndex('files_owner_parent_idx')
      .on('files')
      .columns(['owner_id', 'parent'])
      .execute()
  },
}
