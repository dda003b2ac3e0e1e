// Group commit on SQLite: write transactions of concurrent requests share one SQLite transaction.
//
// The server's SQLite connection runs one write transaction at a time, and on a busy server a
// good part of each one is its COMMIT (the WAL frames of every page it changed, the WAL index
// update). So the driver (sqlite-driver.ts) lets transactions that queue for the connection join
// the SQLite transaction of the one before them, which commits once for all of them:
// - The first transaction of a group (its opener) runs `BEGIN IMMEDIATE` (lockWaitingBegin) and
//   its body as before. The writes before its end are its own, so it needs no savepoint: rolled
//   back, it rolls the whole transaction back, as without groups.
// - A transaction that gets the connection while a group is open joins it: its body runs inside
//   a savepoint (`SAVEPOINT`, `RELEASE` at its end), so rolling back drops its writes only
//   (`ROLLBACK TO`), and its callbacks (Db.whenTransactionEnds) run with `false` at once.
// - At the end of a body, if another caller waits for the connection and the group is small and
//   young enough (GROUP_MAX_MEMBERS, GROUP_MAX_WAIT_MS), the ended transaction hands the
//   connection over and its commit stays pending; if not, the group commits. Either way its
//   caller's `transaction().execute()` resolves only once the group's COMMIT succeeded (rejects if
//   it failed), and callers resume in the order their transactions ran: a request never answers
//   before its writes are committed. A failed COMMIT therefore fails every transaction of its
//   group (the rare cases: I/O errors, a full disk, a deferred foreign key; the schema defers none).
// - Anything else that gets the connection while a group is open (a statement outside a
//   transaction, a read the batched reader routes through Kysely) commits the group first: only
//   members ever see a member's uncommitted writes, and a read after a request answered sees them.
// - Nobody waiting is not the end of a group: concurrent requests rarely overlap on this connection,
//   since a transaction's statements run synchronously and its body ends before the next request's
//   callback runs. So a group with nobody waiting commits at the end of the event-loop turn
//   (setImmediate), and the transactions of the requests handled in that turn join it first.
//   Measured (`npm run bench:delivery -- --producers 8`): without the turn, 1.00 transactions per
//   COMMIT and COMMIT + BEGIN took 42 % of the thread. A member whose body still runs when the turn
//   ends commits the group at its end.
// One producer finds nobody to share its turn with, so each of its transactions commits at the end
// of its turn, with the statements it ran without groups. A member sees what the members before it
// wrote, as it would have seen it committed: they ran before it, and their writes commit with its
// own or not at all.
// What a member's body does outside the database on the strength of an earlier member's writes is
// undone by nothing if the group's COMMIT fails; the caller of that member gets the error.
import type SqliteDatabase from 'better-sqlite3'
import { type EndCallback, runEndCallbacks, type TransactionEndCallbacks } from './transactions.ts'

/** A group commits once this many of its transactions ended, even while others wait. */
const GROUP_MAX_MEMBERS = 64
/** …or once the first of them has waited this long for the COMMIT. */
const GROUP_MAX_WAIT_MS = 4

/** One transaction on the connection, from its BEGIN (or SAVEPOINT) to its end. */
export interface Membership {
  /** It began the group's SQLite transaction (it has no savepoint). */
  readonly opener: boolean
  /** Its body is over: it was released into its group, or rolled back. */
  ended: boolean
}

/** A member whose body is over, waiting for the group's COMMIT. */
interface Ended {
  callbacks: EndCallback[]
  /** Absent for a group's only member, which learns its outcome from the COMMIT itself. */
  resolve?: () => void
  reject?: (error: unknown) => void
}

/** What a member that leaves a group with others in it waits for. */
export interface Leaving {
  /** The member stays in the open group: its caller hands the connection to the next one. */
  handOver: boolean
  /** Settles at the group's COMMIT (rejects if that failed, or if a callback of the member threw). */
  committed: Promise<void>
}

function outcomeOf(entry: Ended): Promise<void> {
  return new Promise((resolve, reject) => {
    entry.resolve = resolve
    entry.reject = reject
  })
}

interface Group {
  ended: Ended[]
  /** When its first member ended and handed the connection over (performance.now()). */
  waitingSince: number
}

export class CommitGroups {
  #group: Group | null = null
  /** A member's body runs (between enter and leave or rollBack). */
  #inBody = false
  /** The end-of-turn commit is scheduled. */
  #turnEndScheduled = false
  /** The turn ended while a member's body ran: the group commits at that member's end. */
  #turnEnded = false
  readonly #database: SqliteDatabase.Database
  readonly #ends: TransactionEndCallbacks
  readonly #begin: () => Promise<void>
  // Prepared once: a joiner runs two of them more than a transaction without groups.
  readonly #savepoint: SqliteDatabase.Statement
  readonly #release: SqliteDatabase.Statement
  readonly #rollbackTo: SqliteDatabase.Statement
  readonly #commit: SqliteDatabase.Statement
  readonly #rollback: SqliteDatabase.Statement

  constructor(database: SqliteDatabase.Database, ends: TransactionEndCallbacks, begin: () => Promise<void>) {
    this.#database = database
    this.#ends = ends
    this.#begin = begin
    // One name serves every member: members run one after another, each savepoint released or
    // rolled back before the next one is taken.
    this.#savepoint = database.prepare('savepoint tessera_group_member')
    this.#release = database.prepare('release tessera_group_member')
    this.#rollbackTo = database.prepare('rollback to tessera_group_member')
    this.#commit = database.prepare('commit')
    this.#rollback = database.prepare('rollback')
  }

  /** Whether a group's SQLite transaction is open (then someone holds the connection). */
  get open(): boolean {
    return this.#group !== null
  }

  /** Whether the open group must commit rather than wait for more members. */
  get full(): boolean {
    const group = this.#group
    if (group === null || group.ended.length === 0) return false
    return (
      this.#turnEnded ||
      group.ended.length >= GROUP_MAX_MEMBERS ||
      performance.now() - group.waitingSince >= GROUP_MAX_WAIT_MS
    )
  }

  /** Starts a transaction: joins the open group, or opens one. */
  async enter(): Promise<Membership> {
    if (this.#group !== null) {
      if (this.#database.inTransaction) {
        this.#savepoint.run()
        this.#ends.start()
        this.#inBody = true
        return { opener: false, ended: false }
      }
      // Defensive: nothing but this class ends the group's transaction.
      this.#abandon(new Error('the commit group’s transaction ended without its COMMIT'))
    }
    await this.#begin()
    this.#group = { ended: [], waitingSince: 0 }
    this.#ends.start()
    this.#inBody = true
    return { opener: true, ended: false }
  }

  /**
   * The member's body is over and it commits. While the group has room it stays in the group until
   * the end of the turn (or longer with `othersWaiting`), and its caller must hand the connection
   * over. Otherwise the group commits now.
   * Answers null when the member was the group's only one and committed (or throws the error),
   * else the promise of its outcome: members answer in their order, the order they committed in.
   */
  leave(member: Membership, othersWaiting: boolean): Leaving | null {
    const group = this.#group
    if (group === null || member.ended) throw new Error('commit without an open transaction')
    // Throws before anything changed: the member is still in its body, and its caller rolls back.
    if (!member.opener) this.#release.run()
    member.ended = true
    this.#inBody = false
    const entry: Ended = { callbacks: this.#ends.take() }
    group.ended.push(entry)
    if (group.ended.length === 1) group.waitingSince = performance.now()
    if (!this.full) {
      if (!othersWaiting) this.#commitAtTurnEnd()
      return { handOver: true, committed: outcomeOf(entry) }
    }
    if (group.ended.length === 1) {
      // Alone: the transaction as without groups, its COMMIT's error its own.
      const error = this.#commitGroup()
      if (error !== undefined) throw error
      return null
    }
    const committed = outcomeOf(entry)
    this.#commitGroup()
    return { handOver: false, committed }
  }

  /** The member's body failed (or its commit did before the group's): drops its writes only. */
  rollBack(member: Membership): void {
    // Its commit ran already: the group's COMMIT failed, or a callback of its own threw.
    if (member.ended) return
    member.ended = true
    this.#inBody = false
    const callbacks = this.#ends.take()
    try {
      if (member.opener) {
        // Its writes are the only ones yet (joiners come after its end): the whole transaction goes.
        this.#abandon(new Error('the transaction that opened the commit group rolled back'))
      } else if (!this.#database.inTransaction) {
        // SQLite rolls the whole transaction back on some errors (I/O, a full disk, no memory).
        this.#abandon(
          new Error('a later transaction of the commit group failed and SQLite rolled the group back'),
        )
      } else {
        this.#rollbackTo.run()
        this.#release.run()
      }
    } catch (error) {
      this.#abandon(error)
    } finally {
      runEndCallbacks(callbacks, false)
    }
  }

  /** Commits the open group for someone outside it; a failure is its members' (they reject). */
  commitNow(): void {
    this.#commitGroup()
  }

  /**
   * The connection closes: a group whose members all ended commits (they wait for the end of the
   * turn); one with a member still in its body can no longer commit, and its members fail.
   */
  close(): void {
    if (this.#group === null) return
    if (this.#inBody) this.#abandon(new Error('the database closed before the commit group committed'))
    else this.#commitGroup()
  }

  /** Commits the open group at the end of this turn, or at the end of the body running then. */
  #commitAtTurnEnd(): void {
    if (this.#turnEndScheduled) return
    this.#turnEndScheduled = true
    setImmediate(() => {
      this.#turnEndScheduled = false
      if (this.#group === null) return
      if (this.#inBody) this.#turnEnded = true
      else this.#commitGroup()
    })
  }

  /**
   * COMMIT, then every member's callbacks and answer. A member whose callback threw gets that
   * error, as its transaction's commit did without groups (its writes are committed all the same).
   * If the COMMIT fails, every member gets its error. Answers the error of the member without a
   * promise (a group's only member, committing it), if any.
   */
  #commitGroup(): unknown {
    const group = this.#group
    if (group === null) return undefined
    this.#group = null
    this.#turnEnded = false
    try {
      this.#commit.run()
    } catch (error) {
      // A failed COMMIT may leave the transaction open (a deferred foreign key): it goes.
      this.#rollBackQuietly()
      return this.#settle(group.ended, false, error)
    }
    return this.#settle(group.ended, true, undefined)
  }

  /** Rolls the group back, failing its ended members with `reason`. */
  #abandon(reason: unknown): void {
    const group = this.#group
    this.#group = null
    this.#turnEnded = false
    this.#inBody = false
    this.#rollBackQuietly()
    if (group !== null) this.#settle(group.ended, false, reason)
  }

  #rollBackQuietly(): void {
    if (!this.#database.inTransaction) return
    try {
      this.#rollback.run()
    } catch {
      // Nothing left to undo for the members: they fail with the error that brought us here.
    }
  }

  /**
   * Runs each member's callbacks and answers it: `failure` when the group did not commit, else the
   * error its callbacks threw, if any. Answers the error of the member without a promise.
   */
  #settle(ended: Ended[], committed: boolean, failure: unknown): unknown {
    let own: unknown
    for (const member of ended) {
      const thrown = runEndCallbacks(member.callbacks, committed)
      const error = committed ? thrown : failure
      if (member.reject === undefined) own = error
      else if (error === undefined) member.resolve?.()
      else member.reject(error)
    }
    return own
  }
}
