// Shipped: never edit (see index.ts). One function per table, in the shipped order.
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    await createWebhooks(db)
    await createEvents(db)
    await createDeliveries(db)
    await createDeliveryAttempts(db)
  },
}

async function createWebhooks(db: AnyDb): Promise<void> {
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
}

async function createEvents(db: AnyDb): Promise<void> {
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
}

async function createDeliveries(db: AnyDb): Promise<void> {
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
}

async function createDeliveryAttempts(db: AnyDb): Promise<void> {
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
}
