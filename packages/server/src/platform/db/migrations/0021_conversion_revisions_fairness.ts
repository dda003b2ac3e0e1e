import { randomBytes } from 'node:crypto'
import type { Migration } from 'kysely'
import { sql } from 'kysely'
import type { AnyDb } from './index.ts'

export const migration: Migration = {
  async up(db: AnyDb) {
    // A file's revision number: 0 for its first upload, +1 for each new revision, and nothing else
    // moves it (`version`, the API's `__v`, also moves with shares). A conversion job names the
    // revision it converts by it, so only a newer revision supersedes it. Existing files start at
    // their `__v`: any starting value works, the number only has to grow with each revision.
    await db.schema
      .alterTable('files')
      .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await sql`update files set revision = version`.execute(db)

    // Jobs name the revision (`file_revision`, was `file_version`, the `__v` at upload). A queued
    // job is always for the current revision (a new revision deletes the queued ones). So is a
    // running one, unless a later job of the same file exists: every revision queues one, so a
    // later job means a later revision; such a job gets -1 and is dropped at its outcome.
    await db.schema.alterTable('jobs').renameColumn('file_version', 'file_revision').execute()
    await sql`
      update jobs set file_revision = case
        when exists (
          select 1 from jobs later
          where later.file_id = jobs.file_id and later.created_at > jobs.created_at
        ) then -1
        else (select revision from files where files.id = jobs.file_id)
      end
      where state in ('queued', 'running')`.execute(db)

    // Fairness between accounts (platform/job-queue.ts): the account a job works for (the file's
    // owner) and when it was last claimed; the next claim serves the account with the fewest
    // running jobs, then the one served longest ago.
    await db.schema
      .alterTable('jobs')
      .addColumn('account_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute()
    await db.schema.alterTable('jobs').addColumn('claimed_at', 'bigint').execute()
    await sql`
      update jobs set account_id = coalesce((select owner_id from files where files.id = jobs.file_id), '')
    `.execute(db)
    await db.schema.createIndex('jobs_account_idx').on('jobs').columns(['account_id', 'claimed_at']).execute()
    await requeueStranded(db)
  },
}

/**
 * Files a share or revoke stranded before this migration (`queued` or `converting` with no live job
 * of their revision: the job took the `__v` bump for a new revision and dropped itself) are queued
 * for conversion again.
 */
async function requeueStranded(db: AnyDb): Promise<void> {
  const stranded = await sql<{ id: string; revision: number; owner_id: string }>`
    select id, revision, owner_id from files
    where state in ('queued', 'converting')
      and not exists (
        select 1 from jobs
        where jobs.file_id = files.id and jobs.file_revision = files.revision
          and jobs.state in ('queued', 'running')
      )`.execute(db)
  const now = Date.now()
  for (const file of stranded.rows) {
    // The shape of platform/ids.ts (seconds, then random), inlined: a migration never changes.
    const id =
      Math.floor(now / 1000)
        .toString(16)
        .padStart(8, '0') + randomBytes(8).toString('hex')
    await db
      .insertInto('jobs')
      .values({
        id,
        kind: 'convert',
        file_id: file.id,
        file_revision: Number(file.revision),
        account_id: file.owner_id,
        claimed_at: null,
        state: 'queued',
        run_at: now,
        attempts: 0,
        lease_until: null,
        leased_by: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    await db
      .updateTable('files')
      .set({ state: 'queued', updated_at: now })
      .where('id', '=', file.id)
      .execute()
  }
}
