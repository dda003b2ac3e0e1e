// Shipped: never edit (see index.ts).
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // The delivery worker claims per webhook: it lists the webhooks with pending deliveries (one
    // index probe each, however deep a backlog) and takes each one's earliest due deliveries up to
    // its free in-flight slots. Status first, so the listing is a skip scan of this index.
    await db.schema
      .createIndex('deliveries_claim_idx')
      .on('deliveries')
      .columns(['status', 'webhook_id', 'next_attempt_at'])
      .execute()
    // Superseded by it: every query that used them names the status; the ones that also range
    // over next_attempt_at without a webhook (the due-backlog gauge) only scan pending rows, while
    // every index here costs each emit and each state change a B-tree write.
    await db.schema.dropIndex('deliveries_webhook_idx').execute()
    await db.schema.dropIndex('deliveries_due_idx').execute()
  },
}
