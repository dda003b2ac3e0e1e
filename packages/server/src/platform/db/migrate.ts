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
 * from several processes at once.
 */
export async function migrate(db: Db, upTo?: string): Promise<string[]> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await migrateOnce(db, upTo)
    } catch (error) {
      if (attempt >= CATALOG_RACE_ATTEMPTS || !isCatalogRace(error)) throw error
    }
  }
}

const CATALOG_RACE_ATTEMPTS = 3

/**
 * Kysely's Migrator first asks its introspector for every table of the database (pg_catalog, all
 * schemas); while another process changes a table of another schema — other tests, other tenants
 * on one server — that read can fail with "column … does not exist" (42703), "relation … does not
 * exist" (42P01) or "cache lookup failed" (XX000). Nothing was migrated then: it is run again.
 */
function isCatalogRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === '42703' || code === '42P01' || code === 'XX000'
}

async function migrateOnce(db: Db, upTo: string | undefined): Promise<string[]> {
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
