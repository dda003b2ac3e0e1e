import { type Migration, type MigrationProvider, Migrator } from 'kysely'
import { migrationTableSchema } from './dialect.ts'
import { migrationList } from './migrations/index.ts'
import type { Db } from './types.ts'

class StaticMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(migrationList.map(({ name, migration }) => [name, migration]))
  }
}

/**
 * Brings the schema up to date (or up to migration `upTo`, for tests of a migration); safe to run
 * from several processes at once. On PostgreSQL the Migrator's introspection reads our own schema
 * only (pg-introspector.ts), so other schemas changing meanwhile cannot fail it.
 */
export async function migrate(db: Db, upTo?: string): Promise<string[]> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: new StaticMigrations(),
    migrationTableSchema: await migrationTableSchema(db),
  })
  const { error, results } = await (upTo === undefined
    ? migrator.migrateToLatest()
    : migrator.migrateTo(upTo))
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
