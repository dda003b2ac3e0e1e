// The PostgreSQL dialect with an introspector that reads the connection's own schema only.
//
// Kysely's stock PostgreSQL introspector reads every schema of the database and calls
// has_schema_privilege() and pg_get_serial_sequence() by name on each. Its Migrator asks it for all
// tables before every migration. When another client drops a schema during that read (other test
// files, other tenants, other applications on one server), the lookup by name fails with "schema …
// does not exist" (3F000), "relation … does not exist" (42P01) or "cache lookup failed" (XX000),
// and `tessera serve` does not start. Tessera only ever needs the tables of its own schema.
import {
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  PostgresDialect,
  PostgresIntrospector,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely'

interface ColumnRow {
  table_name: string
  table_type: string
  column_name: string
  data_type: string
  is_nullable: string
  column_default: string | null
  identity: string
}

/** Tables and views of current_schema(), from information_schema (which looks objects up by OID). */
class OwnSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>

  constructor(db: Kysely<unknown>) {
    this.#db = db
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return new PostgresIntrospector(this.#db).getSchemas()
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow & { schema: string }>`
      select c.table_schema as schema, c.table_name, t.table_type, c.column_name, c.data_type,
        c.is_nullable, c.column_default, c.is_identity as identity
      from information_schema.columns c
      join information_schema.tables t using (table_schema, table_name)
      where c.table_schema = current_schema()
      order by c.table_name, c.ordinal_position`.execute(this.#db)
    const internal = new Set([DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE])
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>()
    for (const row of rows) {
      if (!options.withInternalKyselyTables && internal.has(row.table_name)) continue
      let table = tables.get(row.table_name)
      if (!table) {
        table = { name: row.table_name, schema: row.schema, isView: row.table_type === 'VIEW', columns: [] }
        tables.set(row.table_name, table)
      }
      table.columns.push(columnOf(row))
    }
    return [...tables.values()]
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) }
  }
}

function columnOf(row: ColumnRow): ColumnMetadata {
  const serial = row.column_default?.startsWith('nextval(') === true
  return {
    name: row.column_name,
    dataType: row.data_type,
    isNullable: row.is_nullable === 'YES',
    isAutoIncrementing: serial || row.identity === 'YES',
    hasDefaultValue: row.column_default !== null || row.identity === 'YES',
  }
}

/** PostgresDialect whose introspection (and so Kysely's Migrator) stays inside the current schema. */
export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db)
  }
}
