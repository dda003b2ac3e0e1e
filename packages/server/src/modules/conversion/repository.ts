// SQL of the conversion jobs (`jobs` rows of kind 'convert') and of the file columns they fill.
import type { Executor } from '../../platform/db/index.ts'

const KIND = 'convert'

function dueJobs(db: Executor, now: number) {
  return db
    .selectFrom('jobs')
    .select(['id', 'file_id', 'file_version', 'state', 'attempts'])
    .where('kind', '=', KIND)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now)]),
        eb.and([eb('state', '=', 'running'), eb('lease_until', '<', now)]),
      ]),
    )
}

/**
 * The next job to run: a due queued one, or a running one whose lease ran out (its worker died).
 * Read without a row lock: the claim locks the job's file first (see claimNext).
 */
export function nextDueJob(db: Executor, now: number) {
  return dueJobs(db, now).orderBy('run_at').limit(1).executeTakeFirst()
}

/** The job `jobId` if it is still due, its row locked until the claim commits (PostgreSQL). */
export function lockDueJob(db: Executor, jobId: string, now: number, lockRows: boolean) {
  return dueJobs(db, now)
    .where('id', '=', jobId)
    .$if(lockRows, (qb) => qb.forUpdate())
    .executeTakeFirst()
}

export function findJob(db: Executor, jobId: string) {
  return db
    .selectFrom('jobs')
    .select(['id', 'file_id', 'file_version', 'state', 'attempts', 'leased_by'])
    .where('id', '=', jobId)
    .executeTakeFirst()
}

export function fileOfJob(db: Executor, fileId: string) {
  return db
    .selectFrom('files')
    .select(['id', 'owner_id', 'name', 'version', 'blob_key', 'optimized_key'])
    .where('id', '=', fileId)
    .executeTakeFirst()
}

export function leaseJob(db: Executor, jobId: string, workerId: string, leaseUntil: number, now: number) {
  return db
    .updateTable('jobs')
    .set((eb) => ({
      state: 'running',
      attempts: eb('attempts', '+', 1),
      lease_until: leaseUntil,
      leased_by: workerId,
      updated_at: now,
    }))
    .where('id', '=', jobId)
    .execute()
}

/** Back to the queue: after a crash (`countAttempt`) or at shutdown (the attempt is given back). */
export function requeueJob(
  db: Executor,
  jobId: string,
  update: { runAt: number; lastError: string | null; giveBackAttempt: boolean; now: number },
) {
  return db
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

export function finishJob(
  db: Executor,
  jobId: string,
  state: 'done' | 'failed',
  lastError: string | null,
  now: number,
) {
  return db
    .updateTable('jobs')
    .set({ state, lease_until: null, leased_by: null, last_error: lastError, updated_at: now })
    .where('id', '=', jobId)
    .execute()
}

export function deleteJob(db: Executor, jobId: string) {
  return db.deleteFrom('jobs').where('id', '=', jobId).execute()
}

/** State and progress of the revision the job converts (no-op once a newer revision exists). */
export function setFileState(
  db: Executor,
  fileId: string,
  version: number,
  update: { state: string; progress: number; now: number },
) {
  return db
    .updateTable('files')
    .set({ state: update.state, progress: update.progress, updated_at: update.now })
    .where('id', '=', fileId)
    .where('version', '=', version)
    .execute()
}

/** Progress while converting; never moves a file that left `converting`. */
export function setProgress(db: Executor, fileId: string, version: number, progress: number) {
  return db
    .updateTable('files')
    .set({ progress })
    .where('id', '=', fileId)
    .where('version', '=', version)
    .where('state', '=', 'converting')
    .execute()
}

interface OptimizedAsset {
  key: string | null
  size: number
  sha256: string
}

export function storeOutcome(
  db: Executor,
  fileId: string,
  update: {
    state: 'ready' | 'error'
    error: string
    /** The scene's root nodes: their IDs and names fill sceneTreeRoots / sceneTreeNames. */
    roots: readonly { id: string; name: string }[]
    optimized: OptimizedAsset
    now: number
  },
) {
  return db
    .updateTable('files')
    .set({
      state: update.state,
      error: update.error,
      progress: update.state === 'ready' ? 100 : 0,
      scene_tree_names: JSON.stringify(update.roots.map((node) => node.name)),
      scene_tree_roots: JSON.stringify(update.roots.map((node) => node.id)),
      optimized_key: update.optimized.key,
      optimized_size: update.optimized.size,
      optimized_sha256: update.optimized.sha256,
      updated_at: update.now,
    })
    .where('id', '=', fileId)
    .execute()
}
