// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // Idempotency-Key of create requests (platform/idempotency.ts, docs/api.md "Idempotent
    // requests"): one row per (account, key). The primary key is what makes two processes that
    // reserve the same key at once agree on one winner (INSERT … ON CONFLICT DO NOTHING).
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      // Null while the first request runs; then its answer's status and JSON text.
      .addColumn('status', 'integer')
      .addColumn('body', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      // When the running request took the key: a reservation older than a bound is taken over.
      .addColumn('locked_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key'])
      .execute()
    await db.schema
      .createIndex('idempotency_keys_expiry')
      .on('idempotency_keys')
      .columns(['expires_at'])
      .execute()
    await db.schema
      .createIndex('idempotency_keys_account_age')
      .on('idempotency_keys')
      .columns(['account_id', 'created_at'])
      .execute()
  },
}
