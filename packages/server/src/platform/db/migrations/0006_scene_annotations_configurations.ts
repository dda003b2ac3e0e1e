// Shipped: never edit (see index.ts). One function per table, in the shipped order.
import type { Migration } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    await createSceneNodes(db)
    await createSceneAttributes(db)
    await createAnnotations(db)
    await createConfigurations(db)
  },
}

async function createSceneNodes(db: AnyDb): Promise<void> {
  // The scene tree of a file, one row per node, written by the conversion when the optimized
  // asset is stored. While a file has no rows here its tree is unknown and scene attributes
  // accept any node ID; once it has rows, only these IDs.
  await db.schema
    .createTable('scene_nodes')
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('scene_nodes_pk', ['file_id', 'node_id'])
    .execute()
}

async function createSceneAttributes(db: AnyDb): Promise<void> {
  // One row per (node, attribute): a merge is a set of upserts and deletes, so concurrent
  // writers of different attributes never overwrite each other.
  await db.schema
    .createTable('scene_attributes')
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scene_attributes_pk', ['file_id', 'node_id', 'name'])
    .execute()
}

async function createAnnotations(db: AnyDb): Promise<void> {
  // Camera coordinates are fractional: 'double precision' is REAL on SQLite and float8 on
  // PostgreSQL, both read back as JS numbers.
  await db.schema
    .createTable('annotations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('author_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('camera_x', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('camera_y', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('camera_z', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('targets', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('read_permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('write_permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('permissions_id', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.createIndex('annotations_file_idx').on('annotations').columns(['file_id', 'id']).execute()
}

async function createConfigurations(db: AnyDb): Promise<void> {
  // The viewer state of a configuration is one JSON document (`settings`): it is read and
  // written whole and never queried by SQL. Identity, authorship and access lists are columns.
  await db.schema
    .createTable('configurations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('author_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('last_modification_author_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('last_modification_date', 'bigint')
    .addColumn('last_activation_date', 'bigint', (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('read_permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('write_permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createIndex('configurations_file_idx')
    .on('configurations')
    .columns(['file_id', 'id'])
    .execute()
}
