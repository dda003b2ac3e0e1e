// Test-only helper process: emits events through the outbox into the database a `tessera` process
// uses (same environment variables), as another Tessera process sharing that database would.
//
//   node test/support/emit-events.ts <ownerAccountId> <count>
//
// It runs apart from the test process on purpose: better-sqlite3 waits for SQLite's write lock
// synchronously, which would freeze a receiver living in the same event loop, turning its answers
// into timeouts and retries that have nothing to do with what is under test.
import { loadConfig } from '../../src/app/config.ts'
import { openDatabase } from '../../src/platform/db/index.ts'
import { emitMany } from './emitter.ts'

const [ownerId, count] = process.argv.slice(2)
if (!ownerId || !count) throw new Error('usage: emit-events.ts <ownerAccountId> <count>')
const config = loadConfig()
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
try {
  await emitMany(db, ownerId, Number(count))
} finally {
  await db.close()
}
