// One migration set for both dialects. Only portable column types: text, integer, bigint.
// Append new migrations; never edit one that has shipped.
import { type Kysely, type Migration, sql } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
type AnyDb = Kysely<any>

export const migrations: Record<string, Migration> = {
  '0001_accounts_sessions_files': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('ends_at', 'bigint')
        .addColumn('superseded_at', 'bigint')
        .execute()
      await db.schema.createIndex('sessions_account_idx').on('sessions').columns(['account_id']).execute()
      await db.schema.createIndex('sessions_expires_idx').on('sessions').columns(['expires_at']).execute()

      await db.schema
        .createTable('login_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .execute()

      await db.schema
        .createTable('files')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('parent', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('share_token', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('is_link', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('allow_live_public_meetings', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('roles', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('attributes', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('scene_tree_names', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('scene_tree_roots', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('favorited_by', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('type', 'text', (c) => c.notNull().defaultTo('file'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('revision_date', 'bigint', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('files_owner_key_unique', ['owner_id', 'key'])
        .execute()
      await db.schema
        .createIndex('files_owner_parent_idx')
        .on('files')
        .columns(['owner_id', 'parent'])
        .execute()
    },
  },
  '0002_webhooks': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('service_token', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', 'bigint')
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('disabled_reason', 'text')
        .addColumn('failing_since', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('webhooks_owner_event_url_unique', ['owner_id', 'event', 'url'])
        .execute()
      await db.schema
        .createIndex('webhooks_event_owner_idx')
        .on('webhooks')
        .columns(['event', 'owner_id'])
        .execute()

      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('file_id', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('run_timestamp', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('events_file_idx').on('events').columns(['file_id']).execute()

      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('owner_email', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('leased_by', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error_code', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('completed_at', 'bigint')
        .execute()
      await db.schema
        .createIndex('deliveries_due_idx')
        .on('deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute()
      await db.schema
        .createIndex('deliveries_webhook_idx')
        .on('deliveries')
        .columns(['webhook_id', 'status'])
        .execute()
      await db.schema.createIndex('deliveries_event_idx').on('deliveries').columns(['event_id']).execute()

      await db.schema
        .createTable('delivery_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('started_at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('response_excerpt', 'text', (c) => c.notNull().defaultTo(''))
        .execute()
      await db.schema
        .createIndex('delivery_attempts_delivery_idx')
        .on('delivery_attempts')
        .columns(['delivery_id', 'attempt'])
        .execute()
    },
  },
  '0003_file_shares': {
    async up(db: AnyDb) {
      await db.schema
        .createTable('file_shares')
        .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('file_shares_pk', ['file_id', 'account_id'])
        .execute()
      await db.schema
        .createIndex('file_shares_account_idx')
        .on('file_shares')
        .columns(['account_id'])
        .execute()
    },
  },
  '0004_webhook_ops': {
    async up(db: AnyDb) {
      // Test deliveries (POST /webhook/:id/test) go through the normal machinery but carry
      // `x-service-test: 1` and never count towards the webhook's health.
      await db.schema
        .alterTable('deliveries')
        .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
      // The delivery log of one webhook, newest first (keyset pagination by id).
      await db.schema
        .createIndex('deliveries_webhook_id_idx')
        .on('deliveries')
        .columns(['webhook_id', 'id'])
        .execute()
    },
  },
  '0005_files_jobs': {
    async up(db: AnyDb) {
      // Background jobs (for now: 'convert', one per uploaded revision). Rows are written in the
      // same transaction as the change that needs them; workers claim due rows by (state, run_at)
      // and hold them with a lease.
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
        .addColumn('file_version', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('run_at', 'bigint', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_until', 'bigint')
        .addColumn('leased_by', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['state', 'run_at']).execute()
      await db.schema.createIndex('jobs_file_idx').on('jobs').columns(['file_id']).execute()
    },
  },
  '0006_scene_annotations_configurations': {
    async up(db: AnyDb) {
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
      await db.schema
        .createIndex('annotations_file_idx')
        .on('annotations')
        .columns(['file_id', 'id'])
        .execute()

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
    },
  },
  '0007_optimized_assets': {
    async up(db: AnyDb) {
      // The conversion's output: the optimized GLB's blob (null until a conversion succeeded) with
      // its size and sha256 (the download's ETag). One key per conversion, so a new one never
      // overwrites a blob a reader may be streaming.
      await db.schema.alterTable('files').addColumn('optimized_key', 'text').execute()
      await db.schema
        .alterTable('files')
        .addColumn('optimized_size', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute()
      await db.schema
        .alterTable('files')
        .addColumn('optimized_sha256', 'text', (c) => c.notNull().defaultTo(''))
        .execute()
      // Claims look for due queued jobs and for running jobs whose lease ran out (a crashed worker).
      await db.schema.createIndex('jobs_lease_idx').on('jobs').columns(['state', 'lease_until']).execute()
    },
  },
  '0008_delivery_claims': {
    async up(db: AnyDb) {
      // The delivery worker claims per webhook: it lists the webhooks with pending deliveries (one
      // index probe each, however deep a backlog) and takes each one's earliest due deliveries up to
      // its free in-flight slots. Status first, so the listing is a skip scan of this index.
      await db.schema
        .createIndex('deliveries_claim_idx')
        .on('deliveries')
        .columns(['status', 'webhook_id', 'next_attempt_at'])
        .execute()
      // Superseded by it: every query that used them names the status; the ones that also range
      // over next_attempt_at without a webhook (the due-backlog gauge) only scan pending rows, while
      // every index here costs each emit and each state change a B-tree write.
      await db.schema.dropIndex('deliveries_webhook_idx').execute()
      await db.schema.dropIndex('deliveries_due_idx').execute()
    },
  },
  '0009_outbox_write_path': {
    async up(db: AnyDb) {
      // No query reads through these: deliveries join events by the events' primary key, and
      // events are never deleted (a pruning job would delete deliveries first, then events). Each
      // cost every emit a B-tree page in the commit and in the checkpoint; on SQLite an emit's
      // statements and commit went from ~100 to ~70 µs without them.
      await db.schema.dropIndex('events_file_idx').execute()
      await db.schema.dropIndex('deliveries_event_idx').execute()
    },
  },
  '0010_deliveries_clustered': {
    async up(db: AnyDb) {
      // Every emit writes a delivery row and every attempt rewrites it. On SQLite a rowid table
      // keyed by a text id writes two B-tree pages per insert (the rows, and the index on id),
      // and UNIQUE(uuid) a third one at a random place (uuids are random): rebuilt WITHOUT ROWID,
      // the rows live in the id B-tree itself, and the uuid constraint goes. Nothing looks a delivery
      // up by uuid, and a v4 uuid made per delivery does not collide (122 random bits). WAL frames
      // per delivered event, emit and record together: ~9.2 -> ~7.2.
      if (await isPostgres(db)) {
        await sql`alter table deliveries drop constraint if exists deliveries_uuid_key`.execute(db)
        return
      }
      const [{ sql: ddl } = { sql: '' }] = (
        await sql<{ sql: string }>`select sql from sqlite_master where name = 'deliveries'`.execute(db)
      ).rows
      if (/without rowid/i.test(ddl)) return // rebuilt already (interrupted before it was recorded)
      const columns = `id, uuid, event_id, webhook_id, owner_email, status, attempts, next_attempt_at,
        lease_expires_at, leased_by, last_status_code, last_error_code, created_at, updated_at,
        completed_at, is_test`
      // SQLite's way to change a table (sqlite.org/lang_altertable.html): new table, copy, drop,
      // rename, with foreign keys off so that dropping the old table cascades to nothing, and one
      // transaction so that a crash leaves either table, never half of one.
      await sql`pragma foreign_keys = off`.execute(db)
      try {
        await sql`begin immediate`.execute(db)
        try {
          await sql`create table deliveries_rebuilt (
            id text primary key,
            uuid text not null,
            event_id text not null references events (id),
            webhook_id text not null references webhooks (id) on delete cascade,
            owner_email text not null,
            status text not null,
            attempts integer not null default 0,
            next_attempt_at bigint not null,
            lease_expires_at bigint,
            leased_by text,
            last_status_code integer,
            last_error_code text,
            created_at bigint not null,
            updated_at bigint not null,
            completed_at bigint,
            is_test integer not null default 0
          ) without rowid`.execute(db)
          await sql
            .raw(`insert into deliveries_rebuilt (${columns}) select ${columns} from deliveries`)
            .execute(db)
          await sql`drop table deliveries`.execute(db)
          await sql`alter table deliveries_rebuilt rename to deliveries`.execute(db)
          await db.schema
            .createIndex('deliveries_webhook_id_idx')
            .on('deliveries')
            .columns(['webhook_id', 'id'])
            .execute()
          await db.schema
            .createIndex('deliveries_claim_idx')
            .on('deliveries')
            .columns(['status', 'webhook_id', 'next_attempt_at'])
            .execute()
          const broken = await sql`pragma foreign_key_check`.execute(db)
          if (broken.rows.length > 0) throw new Error('0010: rebuilt deliveries break a foreign key')
          await sql`commit`.execute(db)
        } catch (err) {
          await sql`rollback`.execute(db)
          throw err
        }
      } finally {
        await sql`pragma foreign_keys = on`.execute(db)
      }
    },
  },
}

/**
 * Asks with a PostgreSQL-only function. The probe may fail only on SQLite, whose migrations run
 * outside a transaction (Kysely runs PostgreSQL's in one, which a failed statement would abort).
 */
async function isPostgres(db: AnyDb): Promise<boolean> {
  try {
    await sql`select current_schema()`.execute(db)
    return true
  } catch {
    return false
  }
}
