// The delivery worker's rounds (records and claims, whose loss in a database crash only re-sends an
// attempt) skip PostgreSQL's wait for the WAL flush (DeliveryStore.startRound, also sent by the
// statement that records a batch of successes); nothing else does.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { deliveryStore } from '../../src/delivery/store.ts'
import type { Db } from '../../src/platform/db/index.ts'
import { dialects } from '../support/harness.ts'

for (const dialect of dialects()) {
  describe(`a delivery round's commit on ${dialect.name}`, () => {
    let db: Db
    let drop: () => Promise<void> = async () => {}
    before(async () => {
      const opened = await dialect.open()
      db = opened.db
      drop = opened.drop
    })
    after(async () => {
      await drop()
    })

    test('applies to its own transaction only (SQLite: nothing to do, and it does nothing)', async () => {
      await db.kysely.transaction().execute(async (tx) => {
        await deliveryStore(db).startRound(tx, true)
        await tx
          .insertInto('login_failures')
          .values({ key: 'durability', window_start: 1, count: 1 })
          .execute()
        if (dialect.name === 'postgres') {
          const { rows } = await sql<{
            s: string
          }>`select current_setting('synchronous_commit') as s`.execute(tx)
          assert.equal(rows[0]?.s, 'off')
        }
      })
      // It commits like any other transaction.
      const kept = await db.kysely
        .selectFrom('login_failures')
        .select('count')
        .where('key', '=', 'durability')
        .execute()
      assert.deepEqual(kept, [{ count: 1 }])
      if (dialect.name === 'postgres') {
        // Every connection of the pool is back to the server's default once that transaction ends.
        const seen = await Promise.all(
          Array.from({ length: 4 }, () =>
            db.kysely.transaction().execute(async (tx) => {
              const { rows } = await sql<{
                s: string
              }>`select current_setting('synchronous_commit') as s`.execute(tx)
              await sql`select pg_sleep(0.05)`.execute(tx)
              return rows[0]?.s
            }),
          ),
        )
        assert.deepEqual(seen, ['on', 'on', 'on', 'on'])
      }
    })
  })
}
