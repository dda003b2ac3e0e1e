// Migrations that reshape tables holding data: a database at the migration before keeps every row
// and every relation through the upgrade.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import type { FileState } from '../../src/contract/index.ts'
import { type Db, migrate } from '../../src/platform/db/index.ts'
import { dialects } from '../support/harness.ts'

const NOW = 1_700_000_000_000

/** A delivery row (of event ev1 unless told; succeeded ones have their one attempt counted). */
function delivery(id: string, webhookId: string, status = 'pending', eventId = 'ev1') {
  return {
    id,
    uuid: `uuid-${id}`,
    event_id: eventId,
    webhook_id: webhookId,
    owner_email: 'a@example.com',
    status,
    attempts: status === 'pending' ? 0 : 1,
    next_attempt_at: NOW,
    created_at: NOW,
    updated_at: NOW,
    completed_at: status === 'succeeded' ? NOW : null,
    last_status_code: status === 'succeeded' ? 200 : null,
    is_test: 0,
  }
}

async function seed(db: Db): Promise<void> {
  const k = db.kysely
  await k
    .insertInto('accounts')
    .values({
      id: 'acc',
      email: 'a@example.com',
      username: 'a',
      password_hash: 'x',
      is_admin: 0,
      disabled: 0,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute()
  for (const id of ['wh1', 'wh2']) {
    await k
      .insertInto('webhooks')
      .values({
        id,
        owner_id: 'acc',
        event: 'file_uploaded',
        url: `https://example.com/${id}`,
        secret: 's',
        service_token: 't',
        previous_secret: null,
        previous_secret_expires_at: null,
        disabled: 0,
        disabled_reason: null,
        failing_since: null,
        created_at: NOW,
        updated_at: NOW,
        version: 0,
      })
      .execute()
  }
  await k
    .insertInto('events')
    .values({
      id: 'ev1',
      event: 'file_uploaded',
      file_id: 'f',
      data: '{}',
      run_timestamp: NOW,
      created_at: NOW,
    })
    .execute()
  await k
    .insertInto('deliveries')
    .values([
      delivery('d1', 'wh1', 'succeeded'),
      delivery('d2', 'wh1', 'pending'),
      delivery('d3', 'wh2', 'pending'),
    ])
    .execute()
  await k
    .insertInto('delivery_attempts')
    .values({
      id: 'at1',
      delivery_id: 'd1',
      attempt: 1,
      started_at: NOW,
      duration_ms: 3,
      status_code: 200,
      error_code: null,
      error_message: null,
      response_excerpt: '',
    })
    .execute()
}

for (const dialect of dialects()) {
  describe(`0010_deliveries_clustered on ${dialect.name}`, () => {
    let db: Db
    let drop: () => Promise<void> = async () => {}
    before(async () => {
      const opened = await dialect.open('0009_outbox_write_path')
      db = opened.db
      drop = opened.drop
      await seed(db)
      assert.deepEqual(await migrate(db, '0010_deliveries_clustered'), ['0010_deliveries_clustered'])
    })
    after(async () => {
      await drop()
    })

    test('keeps every delivery, its columns and its attempts', async () => {
      const rows = await db.kysely.selectFrom('deliveries').selectAll().orderBy('id').execute()
      assert.deepEqual(
        rows.map((r) => [
          r.id,
          r.uuid,
          r.webhook_id,
          r.status,
          r.attempts,
          r.last_status_code,
          r.completed_at,
        ]),
        [
          ['d1', 'uuid-d1', 'wh1', 'succeeded', 1, 200, NOW],
          ['d2', 'uuid-d2', 'wh1', 'pending', 0, null, null],
          ['d3', 'uuid-d3', 'wh2', 'pending', 0, null, null],
        ],
      )
      const attempts = await db.kysely.selectFrom('delivery_attempts').select(['id', 'delivery_id']).execute()
      assert.deepEqual(attempts, [{ id: 'at1', delivery_id: 'd1' }])
    })

    test('relations hold: deleting a webhook takes its deliveries and their attempts', async () => {
      await db.kysely.deleteFrom('webhooks').where('id', '=', 'wh1').execute()
      const left = await db.kysely.selectFrom('deliveries').select('id').execute()
      assert.deepEqual(
        left.map((r) => r.id),
        ['d3'],
      )
      assert.equal((await db.kysely.selectFrom('delivery_attempts').select('id').execute()).length, 0)
      // And a delivery still needs its event.
      await assert.rejects(
        db.kysely
          .insertInto('deliveries')
          .values(delivery('d9', 'wh2', 'pending', 'no-such-event'))
          .execute(),
      )
    })

    test('uuid is no longer a unique index; on SQLite the table is clustered on its id', async () => {
      // Two rows with one uuid are accepted now (uuids are unique by construction, not by index).
      await db.kysely
        .insertInto('deliveries')
        .values({ ...delivery('d4', 'wh2'), uuid: 'uuid-d3' })
        .execute()
      if (dialect.name === 'sqlite') {
        const { rows } = await sql<{
          sql: string
        }>`select sql from sqlite_master where name = 'deliveries'`.execute(db.kysely)
        assert.match(rows[0]?.sql ?? '', /without rowid/i)
        const indexes = await sql<{ name: string }>`select name from pragma_index_list('deliveries')`.execute(
          db.kysely,
        )
        assert.deepEqual(indexes.rows.map((r) => r.name).sort(), [
          'deliveries_claim_idx',
          'deliveries_webhook_id_idx',
          'sqlite_autoindex_deliveries_1',
        ])
        // The rebuild left foreign keys on for the connection.
        const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db.kysely)
        assert.equal(fk.rows[0]?.foreign_keys, 1)
      }
    })
  })
}

for (const dialect of dialects()) {
  describe(`0020_outbox_pages on ${dialect.name}`, () => {
    let db: Db
    let drop: () => Promise<void> = async () => {}
    before(async () => {
      const opened = await dialect.open('0019_worker_round')
      db = opened.db
      drop = opened.drop
      await seed(db)
      await db.kysely
        .insertInto('event_stream')
        .values([
          { tx: 0, event_id: 'ev1', account_id: 'acc' },
          { tx: 0, event_id: 'ev1', account_id: 'other' },
        ])
        .execute()
      assert.deepEqual(await migrate(db, '0020_outbox_pages'), ['0020_outbox_pages'])
    })
    after(async () => {
      await drop()
    })

    test('keeps every event and stream row; the stream keeps counting after its largest seq', async () => {
      const events = await db.kysely.selectFrom('events').select(['id', 'data', 'created_at']).execute()
      assert.deepEqual(events, [{ id: 'ev1', data: '{}', created_at: NOW }])
      const before = await db.kysely.selectFrom('event_stream').selectAll().orderBy('seq').execute()
      assert.deepEqual(
        before.map((r) => [r.event_id, r.account_id]),
        [
          ['ev1', 'acc'],
          ['ev1', 'other'],
        ],
      )
      const top = Number(before[1]?.seq)
      await db.kysely
        .insertInto('event_stream')
        .values({ tx: 0, event_id: 'ev1', account_id: 'third' })
        .execute()
      const added = await db.kysely
        .selectFrom('event_stream')
        .select('seq')
        .where('account_id', '=', 'third')
        .execute()
      assert.equal(Number(added[0]?.seq), top + 1)
      // Resuming from Last-Event-ID still finds one row per event and reader.
      await assert.rejects(
        db.kysely.insertInto('event_stream').values({ tx: 0, event_id: 'ev1', account_id: 'acc' }).execute(),
      )
    })

    test('deliveries still need their event, and keep it', async () => {
      await assert.rejects(
        db.kysely
          .insertInto('deliveries')
          .values(delivery('d9', 'wh2', 'pending', 'no-such-event'))
          .execute(),
      )
      await assert.rejects(db.kysely.deleteFrom('events').where('id', '=', 'ev1').execute())
      const left = await db.kysely.selectFrom('deliveries').select('id').orderBy('id').execute()
      assert.deepEqual(
        left.map((r) => r.id),
        ['d1', 'd2', 'd3'],
      )
    })

    if (dialect.name === 'sqlite') {
      test('on SQLite: events clustered on its id, no AUTOINCREMENT, foreign keys back on', async () => {
        const ddl = async (name: string) =>
          (await sql<{ sql: string }>`select sql from sqlite_master where name = ${name}`.execute(db.kysely))
            .rows[0]?.sql ?? ''
        assert.match(await ddl('events'), /without rowid/i)
        assert.doesNotMatch(await ddl('event_stream'), /autoincrement/i)
        const sequence = await sql`select name from sqlite_sequence where name = 'event_stream'`.execute(
          db.kysely,
        )
        assert.equal(sequence.rows.length, 0)
        const indexes = await sql<{
          name: string
        }>`select name from pragma_index_list('event_stream')`.execute(db.kysely)
        assert.deepEqual(indexes.rows.map((r) => r.name).sort(), [
          'event_stream_account_idx',
          'event_stream_event_idx',
        ])
        const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db.kysely)
        assert.equal(fk.rows[0]?.foreign_keys, 1)
      })
    }
  })
}

/** A file row as 0020 knows it: state `state`, `__v` = `version`. */
function fileAt(id: string, state: FileState, version: number) {
  return {
    id,
    owner_id: 'acc',
    user_id: 'acc',
    parent: '/',
    key: `/${id}.stl`,
    name: `${id}.stl`,
    size: 1,
    sha256: '',
    state,
    error: '',
    progress: 0,
    bucket: 'b',
    blob_key: `originals/${id}`,
    share_token: '',
    is_link: 0,
    allow_live_public_meetings: 0,
    roles: '[]',
    attributes: '{}',
    scene_tree_names: '[]',
    scene_tree_roots: '[]',
    favorited_by: '[]',
    type: 'file',
    created_at: NOW,
    updated_at: NOW,
    revision_date: NOW,
    version,
    optimized_key: null,
    optimized_size: 0,
    optimized_sha256: '',
  }
}

for (const dialect of dialects()) {
  describe(`0021_conversion_revisions_fairness on ${dialect.name}`, () => {
    let db: Db
    let drop: () => Promise<void> = async () => {}
    before(async () => {
      const opened = await dialect.open('0020_outbox_pages')
      db = opened.db
      drop = opened.drop
      await seed(db)
      // shared: converting its revision, then shared (`__v` 1 → 2) while its job (queued at 1) ran.
      // revised: revision 0's job still running when revision `__v` 1 came with its own job.
      // stranded: a revoke made its job drop itself; nothing will ever finish it.
      await db.kysely
        .insertInto('files')
        .values([
          fileAt('shared', 'converting', 2),
          fileAt('revised', 'queued', 1),
          fileAt('stranded', 'converting', 3),
        ])
        .execute()
      const job = (id: string, file: string, version: number, state: string, created: number) =>
        sql`insert into jobs (id, kind, file_id, file_version, state, run_at, attempts, lease_until, leased_by,
              last_error, created_at, updated_at)
            values (${id}, 'convert', ${file}, ${version}, ${state}, ${NOW}, ${state === 'running' ? 1 : 0},
              ${state === 'running' ? NOW + 60_000 : null}, ${state === 'running' ? 'w' : null}, null,
              ${created}, ${created})`.execute(db.kysely)
      await job('j1', 'shared', 1, 'running', NOW)
      await job('j2', 'revised', 0, 'running', NOW)
      await job('j3', 'revised', 1, 'queued', NOW + 1)
      await job('j4', 'stranded', 2, 'done', NOW)
      assert.deepEqual(await migrate(db, '0021_conversion_revisions_fairness'), [
        '0021_conversion_revisions_fairness',
      ])
    })
    after(async () => {
      await drop()
    })

    test('jobs name their revision: a share no longer looks like a new revision', async () => {
      const files = await db.kysely
        .selectFrom('files')
        .select(['id', 'revision', 'state'])
        .orderBy('id')
        .execute()
      assert.deepEqual(files, [
        { id: 'revised', revision: 1, state: 'queued' },
        { id: 'shared', revision: 2, state: 'converting' },
        { id: 'stranded', revision: 3, state: 'queued' },
      ])
      const jobs = await db.kysely
        .selectFrom('jobs')
        .select(['file_id', 'file_revision', 'state', 'account_id', 'claimed_at'])
        .orderBy('file_id')
        .orderBy('created_at')
        .execute()
      assert.deepEqual(jobs, [
        // The superseded run is dropped at its outcome; the newer revision's job converts.
        { file_id: 'revised', file_revision: -1, state: 'running', account_id: 'acc', claimed_at: null },
        { file_id: 'revised', file_revision: 1, state: 'queued', account_id: 'acc', claimed_at: null },
        { file_id: 'shared', file_revision: 2, state: 'running', account_id: 'acc', claimed_at: null },
        { file_id: 'stranded', file_revision: 2, state: 'done', account_id: 'acc', claimed_at: null },
        // The stranded file is queued again.
        { file_id: 'stranded', file_revision: 3, state: 'queued', account_id: 'acc', claimed_at: null },
      ])
    })
  })
}
