// Shipped: never edit (see index.ts).
import { type Migration, PostgresAdapter, sql } from 'kysely'
import type { AnyDb } from './index.ts'

// What a model says about its nodes (modules/scene/properties.ts): read-only, written by the
// conversion, per file and generation. A conversion writes its generation's rows in short transactions
// of their own before the one that stores the scene tree, and that transaction publishes the
// generation (scene_property_sets); readers only ever read the published one, and older generations'
// rows are deleted after it commits. Names of groups and properties repeat on every node (50,000
// walls each have `Pset_WallCommon.FireRating`), so each generation keeps a small dictionary of
// (group, name, unit) keys and a property row holds the key's number. A row's `value` is the JSON
// text answered; `text` (lowercased, at most 256 characters) and `num` are what searches compare,
// each with an index that starts at the file, the generation and the key.
export const migration: Migration = {
  async up(db: AnyDb) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter
    await db.schema
      .createTable('scene_property_sets')
      .addColumn('file_id', 'text', (c) => c.primaryKey().references('files.id').onDelete('cascade'))
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addColumn('nodes', 'integer', (c) => c.notNull())
      .addColumn('properties', 'integer', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('scene_property_keys')
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addColumn('key_id', 'integer', (c) => c.notNull())
      .addColumn('grp', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('unit', 'text')
      .addPrimaryKeyConstraint('scene_property_keys_pk', ['file_id', 'generation', 'key_id'])
      .execute()
    await db.schema
      .createIndex('scene_property_keys_name')
      .on('scene_property_keys')
      .columns(['file_id', 'generation', 'grp', 'name'])
      .execute()
    // SQLite: without rowid, the primary key is the table, one b-tree fewer to write per row.
    await db.schema
      .createTable('scene_properties')
      .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
      .addColumn('generation', 'integer', (c) => c.notNull())
      .addColumn('node_id', 'text', (c) => c.notNull())
      .addColumn('key_id', 'integer', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('num', 'double precision')
      .addPrimaryKeyConstraint('scene_properties_pk', ['file_id', 'generation', 'node_id', 'key_id'])
      .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
      .execute()
    await db.schema
      .createIndex('scene_properties_text')
      .on('scene_properties')
      .columns(['file_id', 'generation', 'key_id', 'text', 'node_id'])
      .execute()
    await db.schema
      .createIndex('scene_properties_num')
      .on('scene_properties')
      .columns(['file_id', 'generation', 'key_id', 'num', 'node_id'])
      .where(sql.ref('num'), 'is not', null)
      .execute()
  },
}
