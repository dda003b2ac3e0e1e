// Conversion jobs: claiming one (with a lease), and recording its outcome. Every outcome commits in
// one transaction with its event — the GLB's blob is written before, and removed again if that
// transaction does not commit — so a file never reads `ready` without its asset and scene tree, and
// no `file_optimized` goes out for a result that was not stored.
import { createReadStream } from 'node:fs'
import type { AppContext } from '../../platform/context.ts'
import { type Executor, lockResource, type Tx } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import { leaseMs } from '../../platform/jobs.ts'
import { formatDuration } from '../../platform/units.ts'
import { discardBlob, fileReaderIds, recordOf } from '../files/index.ts'
import { replaceSceneTree } from '../scene/index.ts'
import { type EventName, emitEvent } from '../webhooks/index.ts'
import * as repo from './repository.ts'
import type { RunOutcome } from './runner.ts'

/** Attempts of one job: the first run and at most 3 retries after crashes. */
export const MAX_ATTEMPTS = 4
/** Wait before retry n (after a crash): gives a memory-starved machine room to recover. */
const RETRY_DELAYS_MS = [1_000, 2_000, 4_000]

export interface ClaimedJob {
  jobId: string
  fileId: string
  version: number
  fileName: string
  blobKey: string
  /** 1 for the first run. */
  attempt: number
  workerId: string
}

type Ctx = Pick<AppContext, 'db' | 'blobs' | 'config' | 'log'>

/**
 * Claims the next due job for `workerId`, or answers null when none is due. On the way it ends jobs
 * that crashed their worker too often and drops jobs a newer revision superseded.
 */
export async function claimNext(ctx: Ctx, workerId: string): Promise<ClaimedJob | null> {
  const { db } = ctx
  for (;;) {
    const now = Date.now()
    let discard: string | null = null
    const step = await db.kysely.transaction().execute(async (tx): Promise<ClaimedJob | 'again' | null> => {
      const candidate = await repo.nextDueJob(tx, now)
      if (!candidate) return null
      // The file's lock comes before any job or file row, in every transaction that touches a
      // file's jobs (upload, delete, outcome): one lock order, so no deadlock on PostgreSQL. Two
      // workers after the same job queue here; the second finds it no longer due.
      await lockResource(db, tx, `tessera.files.${candidate.file_id}`)
      const job = await repo.lockDueJob(tx, candidate.id, now, db.dialect === 'postgres')
      if (!job) return 'again'
      const file = await repo.fileOfJob(tx, job.file_id)
      if (!file || file.version !== job.file_version) {
        await repo.deleteJob(tx, job.id)
        return 'again'
      }
      if (job.state === 'running' && job.attempts >= MAX_ATTEMPTS) {
        // The last attempt's worker died holding the lease (a crash of the whole process).
        const reason = crashedReason(job.attempts)
        await fail(ctx, tx, { jobId: job.id, fileId: file.id, ownerId: file.owner_id }, reason, now)
        discard = file.optimized_key
        return 'again'
      }
      await repo.leaseJob(tx, job.id, workerId, now + leaseMs(ctx.config.conversionTimeoutMs), now)
      await repo.setFileState(tx, file.id, file.version, { state: 'converting', progress: 0, now })
      return {
        jobId: job.id,
        fileId: file.id,
        version: file.version,
        fileName: file.name,
        blobKey: file.blob_key,
        attempt: job.attempts + 1,
        workerId,
      }
    })
    if (discard) await discardBlob(ctx, discard)
    if (step !== 'again') return step
  }
}

export async function recordProgress(ctx: Ctx, job: ClaimedJob, percent: number): Promise<void> {
  await repo.setProgress(ctx.db.kysely, job.fileId, job.version, percent)
}

/** Records what a run came to; answers what happened, for logs and tests. */
export async function recordOutcome(ctx: Ctx, job: ClaimedJob, outcome: RunOutcome): Promise<string> {
  switch (outcome.kind) {
    case 'converted':
      return storeConversion(ctx, job, outcome)
    case 'rejected':
      return finishFailed(ctx, job, outcome.reason)
    case 'timed-out':
      return finishFailed(
        ctx,
        job,
        `the conversion took longer than its time budget (${formatDuration(ctx.config.conversionTimeoutMs)})`,
      )
    case 'failed':
      ctx.log.error({ jobId: job.jobId, fileId: job.fileId, detail: outcome.detail }, 'conversion failed')
      return finishFailed(ctx, job, 'conversion failed: internal error')
    case 'crashed':
      ctx.log.warn(
        { jobId: job.jobId, fileId: job.fileId, attempt: job.attempt, detail: outcome.detail },
        'conversion process crashed',
      )
      if (job.attempt >= MAX_ATTEMPTS) return finishFailed(ctx, job, crashedReason(job.attempt))
      return requeue(ctx, job, {
        delayMs: RETRY_DELAYS_MS[job.attempt - 1] ?? 0,
        lastError: 'conversion process crashed',
        giveBackAttempt: false,
      })
    case 'aborted':
      return requeue(ctx, job, { delayMs: 0, lastError: null, giveBackAttempt: true })
  }
}

function crashedReason(attempts: number): string {
  return `the conversion process crashed ${attempts} times (the model may need more memory than allowed)`
}

/**
 * Runs `fn` in a transaction if the job is still ours and still converts the file's current
 * revision; otherwise drops the job (a newer revision or a deletion superseded it) and answers null.
 */
async function whileCurrent<T>(
  ctx: Ctx,
  job: ClaimedJob,
  fn: (tx: Tx, ownerId: string, oldOptimizedKey: string | null) => Promise<T>,
): Promise<T | null> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    await lockResource(ctx.db, tx, `tessera.files.${job.fileId}`)
    const row = await repo.findJob(tx, job.jobId)
    if (row?.state !== 'running' || row.leased_by !== job.workerId) return null
    const file = await repo.fileOfJob(tx, job.fileId)
    if (!file || file.version !== job.version) {
      await repo.deleteJob(tx, job.jobId)
      return null
    }
    return fn(tx, file.owner_id, file.optimized_key)
  })
}

async function storeConversion(
  ctx: Ctx,
  job: ClaimedJob,
  outcome: Extract<RunOutcome, { kind: 'converted' }>,
): Promise<string> {
  const key = `optimized/${newId()}.glb`
  const stored = await ctx.blobs.put(key, createReadStream(outcome.glbPath))
  let committed: { replaced: string | null } | null
  try {
    committed = await whileCurrent(ctx, job, async (tx, ownerId, oldKey) => {
      const now = Date.now()
      await replaceSceneTree(tx, job.fileId, outcome.tree)
      await repo.storeOutcome(tx, job.fileId, {
        state: 'ready',
        error: '',
        roots: outcome.tree,
        optimized: { key, size: stored.size, sha256: stored.sha256 },
        now,
      })
      await repo.finishJob(tx, job.jobId, 'done', null, now)
      const record = await recordOf(tx, job.fileId, ownerId)
      // The spec's file_optimized shows `state: "converting"` with the scene tree filled: the
      // record as the optimized asset is stored. GET /file/:id answers `ready` from this commit on.
      await emit(ctx, tx, 'file_optimized', job.fileId, ownerId, { ...record, state: 'converting' })
      return { replaced: oldKey }
    })
  } catch (error) {
    await discardBlob(ctx, key)
    throw error
  }
  if (committed === null) {
    await discardBlob(ctx, key)
    return 'superseded'
  }
  if (committed.replaced) await discardBlob(ctx, committed.replaced)
  return 'ready'
}

async function finishFailed(ctx: Ctx, job: ClaimedJob, reason: string): Promise<string> {
  const committed = await whileCurrent(ctx, job, async (tx, ownerId, oldKey) => {
    await fail(ctx, tx, { jobId: job.jobId, fileId: job.fileId, ownerId }, reason, Date.now())
    return { replaced: oldKey }
  })
  if (committed === null) return 'superseded'
  if (committed.replaced) await discardBlob(ctx, committed.replaced)
  return 'error'
}

/**
 * The file ends in `error` with `reason`; what an earlier revision's conversion left (asset, tree
 * roots) is cleared so nothing stale is served. The old blob is removed by the caller after commit.
 */
async function fail(
  ctx: Ctx,
  tx: Tx,
  target: { jobId: string; fileId: string; ownerId: string },
  reason: string,
  now: number,
): Promise<void> {
  await repo.storeOutcome(tx, target.fileId, {
    state: 'error',
    error: reason,
    roots: [],
    optimized: { key: null, size: 0, sha256: '' },
    now,
  })
  await repo.finishJob(tx, target.jobId, 'failed', reason, now)
  const record = await recordOf(tx, target.fileId, target.ownerId)
  await emit(ctx, tx, 'file_optimization_failed', target.fileId, target.ownerId, record)
}

async function requeue(
  ctx: Ctx,
  job: ClaimedJob,
  how: { delayMs: number; lastError: string | null; giveBackAttempt: boolean },
): Promise<string> {
  const done = await whileCurrent(ctx, job, async (tx) => {
    const now = Date.now()
    await repo.requeueJob(tx, job.jobId, {
      runAt: now + how.delayMs,
      lastError: how.lastError,
      giveBackAttempt: how.giveBackAttempt,
      now,
    })
    await repo.setFileState(tx, job.fileId, job.version, { state: 'queued', progress: 0, now })
    return true
  })
  return done ? 'requeued' : 'superseded'
}

async function emit(
  ctx: Ctx,
  tx: Tx,
  event: EventName,
  fileId: string,
  ownerId: string,
  data: unknown,
): Promise<void> {
  await emitEvent(ctx, tx, {
    event,
    fileId,
    fileOwnerId: ownerId,
    readerAccountIds: await fileReaderIds(tx as Executor, fileId),
    data,
  })
}
