// One migration set for both dialects. Only portable column types: text, integer, bigint.
// Append new migrations; never edit one that has shipped.
import type { Kysely, Migration } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
type AnyDb = Kysely<any>

export const migrations: Record<string, Migration> = {
  '0001_accounts_sessions_files': {
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
  },
  '0002_webhooks': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('service_token', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', 'bigint')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('disabled_reason', 'text')
        .addColumn('failing_since', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('webhooks_owner_event_url_unique', ['owner_id', 'event', 'url'])
        .execute()
      await db.schema
        .createIndex('webhooks_event_owner_idx')
        .on('webhooks')
        .columns(['event', 'owner_id'])
        .execute()

      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('file_id', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('run_timestamp', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('events_file_idx').on('events').columns(['file_id']).execute()

      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('owner_email', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('leased_by', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error_code', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('completed_at', 'bigint')
        .execute()
      await db.schema
        .createIndex('deliveries_due_idx')
        .on('deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute()
      await db.schema
        .createIndex('deliveries_webhook_idx')
        .on('deliveries')
        .columns(['webhook_id', 'status'])
        .execute()
      await db.schema.createIndex('deliveries_event_idx').on('deliveries').columns(['event_id']).execute()

      await db.schema
        .createTable('delivery_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('response_excerpt', 'text', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema
        .createIndex('delivery_attempts_delivery_idx')
        .on('delivery_attempts')
        .columns(['delivery_id', 'attempt'])
        .execute()
    },
  },
  '0003_file_shares': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('file_shares')
        .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('file_shares_pk', ['file_id', 'account_id'])
        .execute()
      await db.schema
        .createIndex('file_shares_account_idx')
        .on('file_shares')
        .columns(['account_id'])
        .execute()
    },
  },
}
