// SQLite: every write transaction starts IMMEDIATE so that a second process (the CLI beside a
// running server) waits on busy_timeout instead of failing with SQLITE_BUSY at upgrade time.
import { CompiledQuery, type DatabaseConnection, SqliteDialect, SqliteDriver } from 'kysely'
import type { TransactionEndCallbacks } from './transactions.ts'

class ImmediateSqliteDriver extends SqliteDriver {
  readonly ends: TransactionEndCallbacks

  constructor(config: ConstructorParameters<typeof SqliteDriver>[0], ends: TransactionEndCallbacks) {
    super(config)
    this.ends = ends
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
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
