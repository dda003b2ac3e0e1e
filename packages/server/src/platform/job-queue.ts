// The job queue: the `jobs` table belongs to the platform. Modules queue work about a file with
// enqueueJob (in the transaction that makes the work necessary), drop work that became pointless
// (which also stops it where it runs: the workers are woken and check what they hold, heldJobs),
// and claim due jobs under a lease, fairly between the accounts they work for (nextDueAccount).
// A done or failed job is kept as the record of what happened.
import type { ExpressionBuilder } from 'kysely'
import { type Database, type Db, type Executor, lockResource, type Tx } from './db/index.ts'
import { newId } from './ids.ts'
import { jobsChannel } from './jobs.ts'

/** 'convert': turn the file's current revision into an optimized GLB (queued by files, run by conversion). */
export type JobKind = 'convert'

export interface NewJob {
  kind: JobKind
  fileId: string
  /** The file's revision number the job is for: a job for an older revision must not touch a newer one. */
  fileRevision: number
  /** The account the work is for (the file's owner): claims take turns between accounts. */
  accountId: string
  /** The caller's clock for this transaction (ms); the job is due at once. */
  now?: number
}

/** Queues a job and wakes the workers of the queue (at commit, on PostgreSQL). Answers its ID. */
export async function enqueueJob(db: Db, tx: Tx, job: NewJob): Promise<string> {
  const now = job.now ?? Date.now()
  const id = newId(now)
  await tx
    .insertInto('jobs')
    .values({
      id,
      kind: job.kind,
      file_id: job.fileId,
      file_revision: job.fileRevision,
      account_id: job.accountId,
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
  await jobsChannel.wake(db, tx)
  return id
}

/**
 * Drops the file's queued and running jobs of `kind` (a new revision supersedes them) and wakes the
 * workers at commit: a worker running one finds its job gone and stops it (heldJobs).
 */
export async function dropPendingJobs(
  db: Db,
  tx: Tx,
  target: { fileId: string; kind: JobKind },
): Promise<void> {
  const dropped = await tx
    .deleteFrom('jobs')
    .where('file_id', '=', target.fileId)
    .where('kind', '=', target.kind)
    .where('state', 'in', ['queued', 'running'])
    .executeTakeFirst()
  if (Number(dropped.numDeletedRows) > 0) await jobsChannel.wake(db, tx)
}

/** Drops every job of a file, whatever its state (the file is being deleted); wakes workers as above. */
export async function dropFileJobs(db: Db, tx: Tx, fileId: string): Promise<void> {
  const dropped = await tx.deleteFrom('jobs').where('file_id', '=', fileId).executeTakeFirst()
  if (Number(dropped.numDeletedRows) > 0) await jobsChannel.wake(db, tx)
}

/**
 * Of `jobIds`, those still running under `workerId`'s lease. A job missing from the answer was
 * dropped (its file deleted, a newer revision uploaded) or taken over: its run must stop.
 */
export async function heldJobs(
  db: Executor,
  workerId: string,
  jobIds: readonly string[],
): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set()
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('id', 'in', jobIds)
    .where('state', '=', 'running')
    .where('leased_by', '=', workerId)
    .execute()
  return new Set(rows.map((row) => row.id))
}

function dueJobs(db: Executor, kind: JobKind, now: number) {
  return db
    .selectFrom('jobs')
    .select(['id', 'file_id', 'file_revision', 'state', 'attempts'])
    .where('kind', '=', kind)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now)]),
        eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)]),
      ]),
    )
}

/** The claim's view of the queue: `jobs as due`, the due jobs grouped by account. */
type DueScope = Database & { due: Database['jobs'] }

/**
 * The account whose due job of `kind` is claimed next: the one with the fewest jobs running under
 * a live lease (in any process), then the one whose last claim is oldest (never claimed counts as
 * oldest), then the one whose oldest due job has waited longest. So one account's long queue never
 * holds back another account's job for more than the runs already going: with one slot the accounts
 * take turns, and a free slot goes to an account that has nothing running before one that has.
 * Accounts with `accountLimit` jobs running (when it is above 0) wait for one of them to end.
 */
async function nextDueAccount(
  db: Executor,
  kind: JobKind,
  now: number,
  accountLimit: number,
): Promise<string | null> {
  const runningOfDue = (eb: ExpressionBuilder<DueScope, 'due'>) =>
    eb
      .selectFrom('jobs as held')
      .select((inner) => inner.fn.countAll().as('running'))
      .whereRef('held.account_id', '=', 'due.account_id')
      .where('held.kind', '=', kind)
      .where('held.state', '=', 'running')
      .where('held.lease_until', '>=', now)
  const next = await db
    .selectFrom('jobs as due')
    .select('due.account_id')
    .where('due.kind', '=', kind)
    .where((eb) =>
      eb.or([
        eb.and([eb('due.state', '=', 'queued'), eb('due.run_at', '<=', now)]),
        eb.and([eb('due.state', '=', 'running'), eb('due.lease_until', '<', now)]),
      ]),
    )
    .$if(accountLimit > 0, (qb) => qb.where(runningOfDue, '<', accountLimit))
    .groupBy('due.account_id')
    .orderBy(runningOfDue)
    .orderBy((eb) =>
      eb
        .selectFrom('jobs as seen')
        // coalesce: PostgreSQL sorts NULL last, SQLite first; 0 sorts first on both.
        .select((inner) => inner.fn.coalesce(inner.fn.max('seen.claimed_at'), inner.lit(0)).as('last_claim'))
        .whereRef('seen.account_id', '=', 'due.account_id'),
    )
    .orderBy((eb) => eb.fn.min('due.run_at'))
    .orderBy('due.account_id')
    .limit(1)
    .executeTakeFirst()
  return next?.account_id ?? null
}

/** Jobs of `kind` the account has running under a live lease. */
async function runningJobs(db: Executor, kind: JobKind, accountId: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number | string>().as('running'))
    .where('kind', '=', kind)
    .where('account_id', '=', accountId)
    .where('state', '=', 'running')
    .where('lease_until', '>=', now)
    .executeTakeFirstOrThrow()
  return Number(row.running)
}

export interface DueJob {
  id: string
  file_id: string
  file_revision: number
  /** 'queued', or 'running' with a lease that ran out. */
  state: string
  /** Runs started so far. */
  attempts: number
}

/**
 * The next due job of `kind` — a queued one whose time came, or a running one whose lease ran out
 * (its worker died), of the account whose turn it is (nextDueAccount), the oldest first — locked for
 * the rest of `tx`. `lockSubject` takes the lock of what the job is
 * about (its file) BEFORE the job row is locked, the lock order every transaction touching the
 * subject's jobs follows. Answers null when nothing is due, 'taken' when another worker claimed the
 * candidate while we waited for its subject (look again).
 */
export async function lockNextDueJob(
  db: Db,
  tx: Tx,
  claim: { kind: JobKind; now: number; accountLimit: number },
  lockSubject: (candidate: { fileId: string }) => Promise<void>,
): Promise<DueJob | 'taken' | null> {
  const { kind, now, accountLimit } = claim
  const accountId = await nextDueAccount(tx, kind, now, accountLimit)
  if (accountId === null) return null
  if (accountLimit > 0) {
    // Two processes may pick the same account at once: the account's lock (a no-op on SQLite,
    // whose writer is single) makes the second count again after the first's lease committed.
    await lockResource(db, tx, `jobs-account:${accountId}`)
    if ((await runningJobs(tx, kind, accountId, now)) >= accountLimit) return 'taken'
  }
  // Read without a row lock: the row is locked only after its subject.
  const candidate = await dueJobs(tx, kind, now)
    .where('account_id', '=', accountId)
    .orderBy('run_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
  if (!candidate) return null
  await lockSubject({ fileId: candidate.file_id })
  const job = await db.jobStore
    .lockForClaim(dueJobs(tx, kind, now).where('id', '=', candidate.id))
    .executeTakeFirst()
  return job ?? 'taken'
}

/** The job's state and holder (to check a claim is still ours before recording its outcome). */
export function findJob(db: Executor, jobId: string) {
  return db
    .selectFrom('jobs')
    .select(['id', 'file_id', 'file_revision', 'state', 'attempts', 'leased_by'])
    .where('id', '=', jobId)
    .executeTakeFirst()
}

/** The claim: `workerId` runs the job until `leaseUntil`, then another worker may take it over. */
export async function leaseJob(
  db: Executor,
  jobId: string,
  lease: { workerId: string; leaseUntil: number; now: number },
): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      attempts: eb('attempts', '+', 1),
      lease_until: lease.leaseUntil,
      leased_by: lease.workerId,
      claimed_at: lease.now,
      updated_at: lease.now,
    }))
    .where('id', '=', jobId)
    .execute()
}

/** Back to the queue: after a crash (the attempt counts) or at shutdown (the attempt is given back). */
export async function requeueJob(
  db: Executor,
  jobId: string,
  update: { runAt: number; lastError: string | null; giveBackAttempt: boolean; now: number },
): Promise<void> {
  await db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'queued',
      run_at: update.runAt,
      attempts: update.giveBackAttempt ? eb('attempts', '-', 1) : eb('attempts', '+', 0),
      lease_until: null,
      leased_by: null,
      last_error: update.lastError,
      updated_at: update.now,
    }))
    .where('id', '=', jobId)
    .execute()
}

/** The job ends; its row stays as the record of the outcome. */
export async function finishJob(
  db: Executor,
  jobId: string,
  outcome: { state: 'done' | 'failed'; lastError: string | null; now: number },
): Promise<void> {
  await db
    .updateTable('jobs')
    .set({
      state: outcome.state,
      lease_until: null,
      leased_by: null,
      last_error: outcome.lastError,
      updated_at: outcome.now,
    })
    .where('id', '=', jobId)
    .execute()
}

/** Removes a job that no longer has anything to do (its revision was superseded). */
export async function deleteJob(db: Executor, jobId: string): Promise<void> {
  await db.deleteFrom('jobs').where('id', '=', jobId).execute()
}
