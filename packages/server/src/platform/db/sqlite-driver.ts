// SQLite: every write transaction starts IMMEDIATE so that a second process (another API process,
// the workers process, the CLI beside a running server) waits for the write lock instead of failing
// with SQLITE_BUSY at upgrade time; it waits off the event loop (sqlite-lock-wait.ts).
import { type DatabaseConnection, SqliteDialect, SqliteDriver } from 'kysely'
import { lockWaitingBegin } from './sqlite-lock-wait.ts'
import type { TransactionEndCallbacks } from './transactions.ts'

class ImmediateSqliteDriver extends SqliteDriver {
  readonly ends: TransactionEndCallbacks
  readonly #begin: () => Promise<void>

  constructor(config: ConstructorParameters<typeof SqliteDriver>[0], ends: TransactionEndCallbacks) {
    super(config)
    this.ends = ends
    this.#begin = lockWaitingBegin(ends.database)
  }

  // The connection is the one database the transaction-end callbacks watch (open.ts).
  override async beginTransaction(_connection: DatabaseConnection): Promise<void> {
    await this.#begin()
  }

  // The callbacks run before the connection is handed to the next transaction.
  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection)
    } catch (error) {
      if (!this.ends.database.inTransaction) this.ends.run(false)
      throw error
    }
    this.ends.run(true)
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection)
    } finally {
      this.ends.run(false)
    }
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0]
  readonly ends: TransactionEndCallbacks

  constructor(config: ConstructorParameters<typeof SqliteDialect>[0], ends: TransactionEndCallbacks) {
    super(config)
    this.ends = ends
    this.#config = config
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.#config, this.ends)
  }
}
