// SQLite: the driver of the server's one connection. Every write transaction starts IMMEDIATE so
// that a second process (another API process, the workers process, the CLI beside a running
// server) waits for the write lock instead of failing with SQLITE_BUSY at upgrade time; it waits
// off the event loop (sqlite-lock-wait.ts). Transactions that queue for the connection commit
// together, in one SQLite transaction (sqlite-group-commit.ts says how and why).
//
// Kysely's SqliteDriver lends its connection under a mutex, and `transaction().execute()` releases
// it only after commitTransaction returned; but a member of a commit group must hand the
// connection over while its commit is still pending. So this driver (Kysely's, rewritten around
// that) keeps its own queue and lends each caller a lease of the connection: a lease that handed the connection over ignores its
// caller's later release, and queues for the connection again should its caller use it once more
// (a transaction inside `db.connection()`).
import {
  type CompiledQuery,
  createQueryId,
  type DatabaseConnection,
  type Driver,
  IdentifierNode,
  type SqliteDatabase as KyselySqliteDatabase,
  type QueryCompiler,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  SqliteDialect,
} from 'kysely'
import { CommitGroups, type Membership } from './sqlite-group-commit.ts'
import { lockWaitingBegin } from './sqlite-lock-wait.ts'
import type { TransactionEndCallbacks } from './transactions.ts'

/** Callers of the one connection, served in arrival order: nobody overtakes a waiting caller. */
class ConnectionQueue {
  #held = false
  readonly #waiting: Array<() => void> = []

  /** Whether someone waits for the connection (a commit group may wait for them). */
  get waiting(): boolean {
    return this.#waiting.length > 0
  }

  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      this.#waiting.push(resolve)
    })
  }

  /** Hands the connection straight to the next caller in line, or frees it. */
  release(): void {
    const next = this.#waiting.shift()
    if (next === undefined) this.#held = false
    else next()
  }
}

/** One caller's use of the connection, from acquireConnection to releaseConnection. */
class Lease implements DatabaseConnection {
  /** `handedOver`: by its transaction's commit, which waits for the group's; the caller may take it back. */
  state: 'holding' | 'handedOver' | 'released' = 'holding'
  /** Its transaction, once beginTransaction ran on it. */
  membership: Membership | null = null
  /** Its way back to the connection after a hand-over, while queued. */
  takingBack: Promise<void> | null = null
  readonly #driver: GroupCommitSqliteDriver

  constructor(driver: GroupCommitSqliteDriver) {
    this.#driver = driver
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.#driver.execute<R>(this, query)
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return this.#driver.stream<R>(this, query)
  }
}

function leaseOf(connection: DatabaseConnection): Lease {
  if (!(connection instanceof Lease)) throw new Error('not a connection of this SQLite driver')
  return connection
}

/** Kysely's SqliteConnection.executeQuery, on the statement cache. */
function runStatement<R>(
  statements: KyselySqliteDatabase,
  { sql, parameters }: CompiledQuery,
): QueryResult<R> {
  const statement = statements.prepare(sql)
  if (statement.reader) return { rows: statement.all(parameters) as R[] }
  const { changes, lastInsertRowid } = statement.run(parameters)
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
}

/** A savepoint command of a ControlledTransaction, its name quoted as Kysely's own driver does. */
async function runSavepointCommand(
  connection: DatabaseConnection,
  command: 'savepoint' | 'rollback to' | 'release',
  name: string,
  compileQuery: QueryCompiler['compileQuery'],
): Promise<void> {
  const node = RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)])
  await connection.executeQuery(compileQuery(node, createQueryId()))
}

class GroupCommitSqliteDriver implements Driver {
  readonly #statements: KyselySqliteDatabase
  readonly #queue = new ConnectionQueue()
  readonly #groups: CommitGroups

  constructor(statements: KyselySqliteDatabase, ends: TransactionEndCallbacks) {
    this.#statements = statements
    this.#groups = new CommitGroups(ends.database, ends, lockWaitingBegin(ends.database))
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#queue.acquire()
    return new Lease(this)
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = leaseOf(connection)
    const holding = lease.state === 'holding'
    lease.state = 'released'
    if (!holding) return // handed over at its commit already (or released twice)
    // A transaction left neither committed nor rolled back (Kysely never does that) is dropped.
    if (lease.membership !== null) this.#groups.rollBack(lease.membership)
    // A group stays open only for someone about to join it.
    if (this.#groups.open && (!this.#queue.waiting || this.#groups.full)) this.#groups.commitNow()
    this.#queue.release()
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = leaseOf(connection)
    if (lease.state !== 'holding') await this.#take(lease)
    lease.membership = await this.#groups.enter()
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = leaseOf(connection)
    if (lease.membership === null) throw new Error('commit without a transaction')
    const leaving = this.#groups.leave(lease.membership, this.#queue.waiting)
    if (leaving === null) return
    if (leaving.handOver) {
      // The next caller gets the connection while this commit waits for the group's.
      lease.state = 'handedOver'
      this.#queue.release()
    }
    await leaving.committed
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const { membership } = leaseOf(connection)
    if (membership !== null) this.#groups.rollBack(membership)
  }

  async destroy(): Promise<void> {
    this.#groups.close()
    this.#statements.close()
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    await runSavepointCommand(connection, 'savepoint', name, compile)
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await runSavepointCommand(connection, 'rollback to', name, compile)
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await runSavepointCommand(connection, 'release', name, compile)
  }

  execute<R>(lease: Lease, query: CompiledQuery): Promise<QueryResult<R>> {
    if (lease.state !== 'holding') return this.#take(lease).then(() => this.execute<R>(lease, query))
    try {
      this.#beforeStatement(lease)
      return Promise.resolve(runStatement<R>(this.#statements, query))
    } catch (error) {
      return Promise.reject(error)
    }
  }

  async *stream<R>(lease: Lease, query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (lease.state !== 'holding') await this.#take(lease)
    this.#beforeStatement(lease)
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams select queries only')
    for (const row of this.#statements.prepare(query.sql).iterate(query.parameters)) {
      yield { rows: [row as R] }
    }
  }

  /** Someone outside the open group's transactions must see only what it committed. */
  #beforeStatement(lease: Lease): void {
    if (this.#groups.open && lease.membership?.ended !== false) this.#groups.commitNow()
  }

  /** After a hand-over at its commit, `lease` queues for the connection again. */
  #take(lease: Lease): Promise<void> {
    if (lease.state === 'released')
      return Promise.reject(new Error('SQLite connection used after its release'))
    lease.takingBack ??= this.#queue.acquire().then(() => {
      lease.state = 'holding'
      lease.takingBack = null
    })
    return lease.takingBack
  }
}

export class GroupCommitSqliteDialect extends SqliteDialect {
  readonly #statements: KyselySqliteDatabase
  readonly #ends: TransactionEndCallbacks

  /** `statements`: the connection behind the statement cache; `ends`: its transactions' callbacks. */
  constructor(statements: KyselySqliteDatabase, ends: TransactionEndCallbacks) {
    super({ database: statements })
    this.#statements = statements
    this.#ends = ends
  }

  override createDriver() {
    return new GroupCommitSqliteDriver(this.#statements, this.#ends)
  }
}
