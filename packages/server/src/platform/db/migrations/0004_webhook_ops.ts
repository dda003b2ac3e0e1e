// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // Test deliveries (POST /webhook/:id/test) go through the normal machinery but carry
    // `x-service-test: 1` and never count towards the webhook's health.
    await db.schema
      .alterTable('deliveries')
      .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    // The delivery log of one webhook, newest first (keyset pagination by id).
    await db.schema
      .createIndex('deliveries_webhook_id_idx')
      .on('deliveries')
      .columns(['webhook_id', 'id'])
      .execute()
  },
}
