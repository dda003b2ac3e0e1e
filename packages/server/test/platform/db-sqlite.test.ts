// What the SQLite storage kernel adds to Kysely: WAL checkpoints on a thread of their own, callbacks
// at the end of a transaction and statements run straight on the connection inside one. SQLite
// only by nature (PostgreSQL needs none of them); everything else about storage runs on both.
import assert from 'node:assert/strict'
import { rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, test } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import { type Db, migrate, openDatabase } from '../../src/platform/db/index.ts'
import { BUSY_TIMEOUT_MS, lockWaitingBegin } from '../../src/platform/db/sqlite-lock-wait.ts'
import { tempDir } from '../support/harness.ts'

async function withDb(run: (db: Db, dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = tempDir()
  const db = await openDatabase({ databaseUrl: undefined, dataDir })
  try {
    await migrate(db)
    await run(db, dataDir)
  } finally {
    await db.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('sqlite storage kernel', () => {
  test('the WAL is checkpointed off the connection and stays bounded', async () => {
    await withDb(async (db, dataDir) => {
      await sql`create table filler (id integer primary key, body text not null)`.execute(db.kysely)
      const body = 'x'.repeat(1000)
      // 24 MB of writes in 240 transactions. The server's connection never checkpoints; without the
      // thread the WAL would hold all of it.
      for (let batch = 0; batch < 24; batch++) {
        for (let n = 0; n < 10; n++) {
          await db.kysely.transaction().execute(async (tx) => {
            for (let i = 0; i < 100; i++) await sql`insert into filler (body) values (${body})`.execute(tx)
          })
        }
        await sleep(120)
      }
      const wal = statSync(path.join(dataDir, 'tessera.db-wal')).size
      assert.ok(wal < 8 * 1024 * 1024, `WAL is ${wal} bytes`)
      const [{ n } = { n: 0 }] = (
        await sql<{ n: number }>`select count(*) as n from filler`.execute(db.kysely)
      ).rows
      assert.equal(n, 24_000)
    })
  })

  test('whenTransactionEnds tells commit from rollback, and needs a transaction', async () => {
    await withDb(async (db) => {
      const whenEnds = db.whenTransactionEnds
      assert.ok(whenEnds)
      const ends: boolean[] = []
      await db.kysely.transaction().execute(async () => whenEnds((committed) => ends.push(committed)))
      await assert.rejects(
        db.kysely.transaction().execute(async () => {
          whenEnds((committed) => ends.push(committed))
          throw new Error('roll back')
        }),
        /roll back/,
      )
      // A later transaction does not fire callbacks of an earlier one again.
      await db.kysely.transaction().execute(async () => {})
      assert.deepEqual(ends, [true, false])
      assert.throws(() => whenEnds(() => {}), /needs an open transaction/)
    })
  })

  test('runInTransaction reads and writes inside the caller’s transaction only', async () => {
    await withDb(async (db) => {
      const runIn = db.runInTransaction
      assert.ok(runIn)
      await sql`create table pairs (k text primary key, v integer not null)`.execute(db.kysely)
      await assert.rejects(
        db.kysely.transaction().execute(async () => {
          assert.equal(runIn('insert into pairs (k, v) values (?, ?)', ['a', 1]).affected, 1)
          assert.deepEqual(runIn('select k, v from pairs where k = ?', ['a']).rows, [{ k: 'a', v: 1 }])
          throw new Error('roll back')
        }),
      )
      await db.kysely.transaction().execute(async () => {
        runIn('insert into pairs (k, v) values (?, ?)', ['b', 2])
      })
      const rows = (await sql<{ k: string }>`select k from pairs`.execute(db.kysely)).rows
      assert.deepEqual(
        rows.map((r) => r.k),
        ['b'],
      )
      assert.throws(() => runIn('select 1', []), /needs an open transaction/)
    })
  })

  // Another connection to the file stands for another process: SQLite's write lock is the file's.
  test('a write transaction waits for another process’s write lock without blocking the event loop', async () => {
    await withDb(async (db, dataDir) => {
      await sql`create table marks (v integer not null)`.execute(db.kysely)
      const other = new SqliteDatabase(path.join(dataDir, 'tessera.db'))
      try {
        other.exec('begin immediate')
        const started = performance.now()
        const write = db.kysely
          .transaction()
          .execute((tx) => sql`insert into marks (v) values (1)`.execute(tx))
        // Waiting in SQLite's busy handler would hold this thread (and so this timer) until the
        // busy timeout, and the other connection, on the same thread, could never commit.
        await sleep(30)
        const waitedMs = performance.now() - started
        assert.ok(waitedMs < 1000, `the event loop was held for ${Math.round(waitedMs)} ms`)
        other.exec('commit')
        await write
        const rows = (await sql<{ v: number }>`select v from marks`.execute(db.kysely)).rows
        assert.deepEqual(rows, [{ v: 1 }])
      } finally {
        other.close()
      }
    })
  })

  test('a write lock never released fails the BEGIN with SQLITE_BUSY after the timeout', async () => {
    const dataDir = tempDir()
    const file = path.join(dataDir, 'lock.db')
    const database = new SqliteDatabase(file)
    const other = new SqliteDatabase(file)
    try {
      database.pragma('journal_mode = WAL')
      database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
      other.exec('begin immediate')
      const begin = lockWaitingBegin(database, 60)
      const started = performance.now()
      await assert.rejects(begin(), { code: 'SQLITE_BUSY' })
      assert.ok(performance.now() - started >= 60)
      assert.equal(database.inTransaction, false)
      // Every other statement still waits on the connection's usual busy timeout.
      assert.equal(database.pragma('busy_timeout', { simple: true }), BUSY_TIMEOUT_MS)
      other.exec('commit')
      await begin()
      assert.equal(database.inTransaction, true)
      database.exec('commit')
    } finally {
      other.close()
      database.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
