// Group commit on SQLite (platform/db/sqlite-group-commit.ts): transactions that queue for the one
// connection share one SQLite transaction and one COMMIT, each answering only once that COMMIT
// succeeded; one that fails takes only its own writes with it; nothing outside a group ever reads
// what its members wrote before the COMMIT. SQLite only by nature.
//
// COMMITs are counted from another connection: `pragma data_version` there moves whenever this
// connection committed in between, and each transaction's end callback (run at its group's COMMIT)
// reads it, so the transactions of one COMMIT read one value and those of two COMMITs two.
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import SqliteDatabase from 'better-sqlite3'
import { type Kysely, sql } from 'kysely'
import { emitEvent } from '../../src/events/index.ts'
import { type Db, type Executor, openDatabase, precompiled, type Tx } from '../../src/platform/db/index.ts'
import { signedIn } from '../support/api.ts'
import { dialects, startApp, type TestApp, tempDir } from '../support/harness.ts'
import { register } from '../support/receiver.ts'

interface MarksDatabase {
  marks: { id: number; tag: string }
}

/** The same read as `marks(tag)` below, through the batched reader (precompiled reads only). */
const countTagged = precompiled((db: Executor, tag: string) =>
  (db as unknown as Kysely<MarksDatabase>)
    .selectFrom('marks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tag', '=', tag),
)

interface Kernel {
  db: Db
  /** A second connection to the file, as another process has. */
  other: SqliteDatabase.Database
  whenEnds: NonNullable<Db['whenTransactionEnds']>
}

async function withKernel(run: (kernel: Kernel) => Promise<void>): Promise<void> {
  const dataDir = tempDir()
  const db = await openDatabase({ databaseUrl: undefined, dataDir })
  const other = new SqliteDatabase(path.join(dataDir, 'tessera.db'))
  try {
    await sql`create table marks (id integer primary key, tag text not null default '')`.execute(db.kysely)
    const whenEnds = db.whenTransactionEnds
    assert.ok(whenEnds)
    await run({ db, other, whenEnds })
  } finally {
    other.close()
    await db.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

function insertMark(tx: Tx, id: number, tag = '') {
  return sql`insert into marks (id, tag) values (${id}, ${tag})`.execute(tx)
}

function marksSeenBy(other: SqliteDatabase.Database): number[] {
  return (other.prepare('select id from marks order by id').pluck().all() as number[]).slice()
}

/** What one transaction of a concurrent batch saw: its outcome, its callbacks, its COMMIT. */
interface Outcome {
  /** Its place among the bodies run, and among the answers. */
  ranAs?: number
  answeredAs?: number
  committed: boolean[]
  /** The other connection's data_version at this transaction's end callback. */
  commitSeen?: number
  /** The error it rejected with. */
  error?: unknown
  /** Whether its row was visible to the other connection when its promise settled. */
  visibleAtAnswer?: boolean
}

/**
 * Starts `count` transactions at once, each inserting row `i` through `body` (default: just that);
 * answers every outcome once all settled.
 */
async function concurrently(
  kernel: Kernel,
  count: number,
  body: (tx: Tx, i: number) => Promise<void> = (tx, i) => insertMark(tx, i).then(() => {}),
): Promise<Outcome[]> {
  const { db, other, whenEnds } = kernel
  const visible = other.prepare('select count(*) from marks where id = ?').pluck()
  const dataVersion = other.prepare('pragma data_version').pluck()
  const outcomes: Outcome[] = Array.from({ length: count }, () => ({ committed: [] }))
  let ran = 0
  let answered = 0
  await Promise.all(
    outcomes.map(async (outcome, i) => {
      try {
        await db.kysely.transaction().execute(async (tx) => {
          outcome.ranAs = ran++
          whenEnds((committed) => {
            outcome.committed.push(committed)
            if (committed) outcome.commitSeen = dataVersion.get() as number
          })
          await body(tx, i)
        })
      } catch (error) {
        outcome.error = error
      }
      outcome.answeredAs = answered++
      outcome.visibleAtAnswer = visible.get(i) === 1
    }),
  )
  return outcomes
}

/** How many COMMITs the committed transactions of `outcomes` took. */
function commitsOf(outcomes: Outcome[]): number {
  return new Set(outcomes.filter((o) => o.commitSeen !== undefined).map((o) => o.commitSeen)).size
}

describe('group commit on sqlite', () => {
  test('concurrent transactions share COMMITs, each answering once its writes are visible elsewhere', async () => {
    await withKernel(async (kernel) => {
      const outcomes = await concurrently(kernel, 40, async (tx, i) => {
        await insertMark(tx, i)
        await sql`update marks set tag = 'seen' where id = ${i}`.execute(tx)
      })
      for (const [i, outcome] of outcomes.entries()) {
        assert.equal(outcome.error, undefined, `transaction ${i} failed`)
        assert.deepEqual(outcome.committed, [true])
        assert.ok(outcome.visibleAtAnswer, `transaction ${i} answered before its COMMIT`)
        // Callers resume in the order the transactions ran (and so committed) in.
        assert.equal(outcome.answeredAs, outcome.ranAs)
      }
      const commits = commitsOf(outcomes)
      assert.ok(commits <= 20, `40 transactions took ${commits} COMMITs`)
      assert.equal(marksSeenBy(kernel.other).length, 40)
    })
  })

  test('transactions of one event-loop turn share its COMMIT though none waited for another', async () => {
    await withKernel(async (kernel) => {
      // As requests arrive: each transaction starts in a callback of its own (here setImmediate's)
      // and its body ends before the next callback runs, so nobody ever queues for the connection.
      const started = (i: number) =>
        new Promise<Outcome[]>((resolve) =>
          setImmediate(() => resolve(concurrently(kernel, 1, (tx) => insertMark(tx, i).then(() => {})))),
        )
      const outcomes = (await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(started))).flat()
      for (const outcome of outcomes) {
        assert.deepEqual(outcome.committed, [true])
        assert.ok(outcome.visibleAtAnswer)
      }
      assert.equal(commitsOf(outcomes), 1, 'one turn, one COMMIT')
      assert.equal(marksSeenBy(kernel.other).length, 8)
    })
  })

  test('a body still running when the turn ends commits the group at its end; the ended wait for it', async () => {
    await withKernel(async (kernel) => {
      const { db, other } = kernel
      const bodyEnded = signal()
      let firstAnsweredAt = 0
      let slowEndedAt = 0
      const first = db.kysely
        .transaction()
        .execute((tx) => insertMark(tx, 1))
        .then(() => {
          firstAnsweredAt = performance.now()
        })
      // Joins the group in the same turn, then spans turns.
      const slow = db.kysely.transaction().execute(async (tx) => {
        await insertMark(tx, 2)
        await sleep(20)
        slowEndedAt = performance.now()
        bodyEnded.resolve()
      })
      await bodyEnded.promise
      assert.deepEqual(marksSeenBy(other), [], 'nothing committed while a member ran')
      await Promise.all([first, slow])
      assert.ok(firstAnsweredAt >= slowEndedAt, 'the first answered only at the group’s COMMIT')
      assert.deepEqual(marksSeenBy(other), [1, 2])
    })
  })

  test('a transaction that fails takes only its own writes; the members after it see the others’', async () => {
    await withKernel(async (kernel) => {
      const seenByNext: number[][] = []
      const outcomes = await concurrently(kernel, 20, async (tx, i) => {
        await insertMark(tx, i)
        if (i === 8) {
          const { rows } = await sql<{ id: number }>`select id from marks order by id`.execute(tx)
          seenByNext.push(rows.map((r) => r.id))
        }
        // The first one opens a group (no savepoint: it rolls back the whole transaction), the
        // seventh fails as a joiner (rolls back to its savepoint).
        if (i === 0 || i === 7) throw new Error(`transaction ${i} fails`)
      })
      for (const [i, outcome] of outcomes.entries()) {
        if (i === 0 || i === 7) {
          assert.match(String(outcome.error), new RegExp(`transaction ${i} fails`))
          assert.deepEqual(outcome.committed, [false])
          assert.equal(outcome.visibleAtAnswer, false)
        } else {
          assert.equal(outcome.error, undefined, `transaction ${i} failed`)
          assert.deepEqual(outcome.committed, [true])
          assert.ok(outcome.visibleAtAnswer)
        }
      }
      const survivors = Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 0 && i !== 7)
      assert.deepEqual(marksSeenBy(kernel.other), survivors)
      // Transaction 8 saw 1…6 (earlier members, not committed yet) and neither 0 nor 7.
      assert.deepEqual(seenByNext, [[1, 2, 3, 4, 5, 6, 8]])
      assert.ok(commitsOf(outcomes) < survivors.length)
    })
  })

  test('a COMMIT that fails fails every transaction of its group, and the next one commits', async () => {
    await withKernel(async (kernel) => {
      const { db, other } = kernel
      // A foreign key checked only at COMMIT: every statement succeeds, the COMMIT does not.
      await sql`create table guard (id text primary key)`.execute(db.kysely)
      await sql`create table trap (ref text references guard (id) deferrable initially deferred)`.execute(
        db.kysely,
      )
      const outcomes = await concurrently(kernel, 10, async (tx, i) => {
        await insertMark(tx, i)
        if (i === 5) await sql`insert into trap (ref) values ('nothing')`.execute(tx)
      })
      const failed = outcomes.flatMap((o, i) => (o.error === undefined ? [] : [i]))
      assert.ok(failed.includes(5))
      assert.ok(failed.length > 1, 'the trap’s group had no other member')
      assert.deepEqual(
        failed,
        Array.from({ length: failed.length }, (_, k) => (failed[0] ?? 0) + k),
      )
      for (const i of failed) {
        assert.match(String(outcomes[i]?.error), /FOREIGN KEY/)
        assert.deepEqual(outcomes[i]?.committed, [false])
      }
      const committed = outcomes.flatMap((o, i) => (o.error === undefined ? [i] : []))
      assert.deepEqual(marksSeenBy(other), committed)
      // The connection is left with no transaction open: the next one commits alone.
      await db.kysely.transaction().execute((tx) => insertMark(tx, 100))
      assert.ok(marksSeenBy(other).includes(100))
    })
  })

  test('a read outside any transaction sees committed rows only, and commits the open group first', async () => {
    await withKernel(async (kernel) => {
      const { db, other } = kernel
      const opened = signal()
      const goOn = signal()
      // A: the group's first member, committed into the group once B waits behind it.
      const a = db.kysely.transaction().execute(async (tx) => {
        await insertMark(tx, 1, 'a')
        await goOn.promise
      })
      // B joins, writes, and holds the connection until it fails.
      const b = db.kysely.transaction().execute(async (tx) => {
        await insertMark(tx, 2, 'b')
        opened.resolve()
        await sleep(20)
        throw new Error('b fails')
      })
      goOn.resolve()
      await opened.promise
      // Both while B runs: a plain statement, and a precompiled read (the batched reader, which
      // must not read the connection directly while a transaction is open on it).
      const plain = sql<{ tag: string }>`select tag from marks order by id`.execute(db.kysely)
      const batchedA = countTagged(db.kysely, 'a')
      const batchedB = countTagged(db.kysely, 'b')
      assert.equal(marksSeenBy(other).length, 0, 'A is not committed while B runs')
      await assert.rejects(b, /b fails/)
      assert.deepEqual((await plain).rows, [{ tag: 'a' }])
      assert.deepEqual(await batchedA, [{ n: 1 }])
      assert.deepEqual(await batchedB, [{ n: 0 }])
      await a
      assert.deepEqual(marksSeenBy(other), [1])
    })
  })

  test('transactions wait for another process’s write lock without blocking, then commit together', async () => {
    await withKernel(async (kernel) => {
      const { other } = kernel
      other.exec('begin immediate')
      const started = performance.now()
      const batch = concurrently(kernel, 10)
      await sleep(30)
      // Waiting in SQLite's busy handler would have held this timer for the busy timeout. These are
      // the connection's first transactions, whose BEGIN once did (sqlite-lock-wait.ts).
      assert.ok(performance.now() - started < 1000)
      other.exec('commit')
      const outcomes = await batch
      assert.ok(outcomes.every((o) => o.error === undefined && o.visibleAtAnswer))
      assert.ok(commitsOf(outcomes) < 10)
      assert.deepEqual(marksSeenBy(other), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    })
  })

  test('one producer commits every transaction at once and leaves the write lock free', async () => {
    await withKernel(async (kernel) => {
      const { db, other, whenEnds } = kernel
      const dataVersion = other.prepare('pragma data_version').pluck()
      const versions = new Set<unknown>()
      for (let i = 0; i < 5; i++) {
        await db.kysely.transaction().execute(async (tx) => {
          await insertMark(tx, i)
          whenEnds((committed) => assert.ok(committed))
        })
        versions.add(dataVersion.get())
        // No group is held open: another process takes the write lock without waiting.
        other.pragma('busy_timeout = 0')
        other.exec('begin immediate')
        other.exec('rollback')
      }
      assert.equal(versions.size, 5)
      assert.deepEqual(marksSeenBy(other), [0, 1, 2, 3, 4])
    })
  })

  test('runInTransaction, savepoints and a transaction inside db.connection() work inside groups', async () => {
    await withKernel(async (kernel) => {
      const { db, other } = kernel
      const runIn = db.runInTransaction
      assert.ok(runIn)
      const queued = concurrently(kernel, 6, async (_tx, i) => {
        runIn('insert into marks (id) values (?)', [i])
        if (i === 3) throw new Error('rolled back')
      })
      const controlled = (async () => {
        const trx = await db.kysely.startTransaction().execute()
        await insertMark(trx, 10)
        const point = await trx.savepoint('before_eleven').execute()
        await insertMark(point, 11)
        await point.rollbackToSavepoint('before_eleven').execute()
        await trx.commit().execute()
      })()
      // Its transaction hands the connection over at commit; the read after it takes it back.
      const onConnection = db.kysely.connection().execute(async (connection) => {
        await connection.transaction().execute((tx) => insertMark(tx, 20))
        return (await sql<{ n: number }>`select count(*) as n from marks where id = 20`.execute(connection))
          .rows
      })
      // Waits behind it, so that its transaction leaves the connection to this one at commit.
      const last = db.kysely.transaction().execute((tx) => insertMark(tx, 30))
      await Promise.all([queued, controlled, last])
      assert.deepEqual(await onConnection, [{ n: 1 }])
      assert.deepEqual(marksSeenBy(other), [0, 1, 2, 4, 5, 10, 20, 30])
      assert.throws(() => runIn('select 1', []), /needs an open transaction/)
    })
  })
})

for (const dialect of dialects().filter((d) => d.name === 'sqlite')) {
  describe('group commit through the outbox', () => {
    let t: TestApp
    before(async () => {
      // No worker: the deliveries stay as the emits wrote them.
      t = await startApp(dialect, {}, { workers: false })
    })
    after(async () => {
      await t.close()
    })

    test('concurrent emits all commit with their deliveries; one failing fails alone', async () => {
      const user = await signedIn(t.app)
      await register(t.app, user.authToken, 'file_uploaded', 'http://127.0.0.1:9/hook')
      const fileId = 'fc0000000000000000000000'
      const whenEnds = t.db.whenTransactionEnds
      assert.ok(whenEnds)
      const other = new SqliteDatabase(path.join(t.config.dataDir, 'tessera.db'), { readonly: true })
      const dataVersion = other.prepare('pragma data_version').pluck()
      const commitsSeen = new Set<unknown>()
      const results = await Promise.allSettled(
        Array.from({ length: 16 }, (_, n) =>
          t.db.kysely.transaction().execute(async (tx) => {
            whenEnds((committed) => {
              if (committed) commitsSeen.add(dataVersion.get())
            })
            const emitted = await emitEvent(t.app.ctx, tx, {
              event: 'file_uploaded',
              fileId,
              fileOwnerId: user.account.id,
              data: { n },
            })
            if (n === 5) throw new Error('the change failed')
            return emitted
          }),
        ),
      )
      const emitted = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
      assert.equal(emitted.length, 15)
      assert.match(String(results[5]?.status === 'rejected' && results[5].reason), /the change failed/)
      const events = await t.db.kysely
        .selectFrom('events')
        .select('id')
        .where('file_id', '=', fileId)
        .execute()
      assert.deepEqual(events.map((e) => e.id).sort(), emitted.map((e) => e.eventId).sort())
      const deliveries = await t.db.kysely
        .selectFrom('deliveries')
        .select('event_id')
        .where(
          'event_id',
          'in',
          emitted.map((e) => e.eventId),
        )
        .execute()
      assert.equal(deliveries.length, 15)
      assert.ok(emitted.every((e) => e.deliveries === 1))
      assert.ok(commitsSeen.size < 15, `15 emits took ${commitsSeen.size} COMMITs`)
      other.close()
    })
  })
}
