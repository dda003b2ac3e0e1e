// Conversion jobs: claiming one (with a lease), and recording its outcome. Every outcome commits in
// one transaction with its event — the GLB's blob is written before, and removed again if that
// transaction does not commit — so a file never reads `ready` without its asset and scene tree, and
// no `file_optimized` goes out for a result that was not stored.
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { EventName } from '../../contract/index.ts'
import { emitEvent } from '../../events/index.ts'
import type { AppContext } from '../../platform/context.ts'
import type { Tx } from '../../platform/db/index.ts'
import { newId } from '../../platform/ids.ts'
import * as queue from '../../platform/job-queue.ts'
import { leaseMs } from '../../platform/jobs.ts'
import { formatDuration } from '../../platform/units.ts'
import {
  conversionSource,
  discardBlob,
  fileReaderIds,
  lockFile,
  markConverting,
  markFailed,
  markQueued,
  markReady,
  recordOf,
  reportProgress,
} from '../files/index.ts'
import {
  type GenerationRange,
  type NodePropertiesInput,
  propertyGeneration,
  pruneSceneProperties,
  publishSceneProperties,
  replaceSceneTree,
  stageSceneProperties,
} from '../scene/index.ts'
import type { RunOutcome } from './runner.ts'

/** Attempts of one job: the first run and at most 3 retries after crashes. */
export const MAX_ATTEMPTS = 4
/** Wait before retry n (after a crash): gives a memory-starved machine room to recover. */
const RETRY_DELAYS_MS = [1_000, 2_000, 4_000]

export interface ClaimedJob {
  jobId: string
  fileId: string
  /** The file's revision number this job converts (not its `__v`: a share moves that, not this). */
  revision: number
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
    let discard: string[] = []
    // Set inside the transaction's callback, which TypeScript cannot see run: hence the wide type.
    let unpublished = null as { fileId: string; range: GenerationRange } | null
    const step = await db.kysely.transaction().execute(async (tx): Promise<ClaimedJob | 'again' | null> => {
      // Two workers after the same job queue on its file's lock; the second finds it taken.
      const claim = { kind: 'convert' as const, now, accountLimit: ctx.config.conversionAccountConcurrency }
      const job = await queue.lockNextDueJob(db, tx, claim, ({ fileId }) => lockFile(db, tx, fileId))
      if (job === null) return null
      if (job === 'taken') return 'again'
      const file = await conversionSource(tx, job.file_id)
      // Only a newer revision (or the file's deletion) supersedes a job, never a share or the like.
      if (!file || file.revision !== job.file_revision) {
        await queue.deleteJob(tx, job.id)
        return 'again'
      }
      if (job.state === 'running' && job.attempts >= MAX_ATTEMPTS) {
        // The last attempt's worker died holding the lease (a crash of the whole process).
        const reason = crashedReason(job.attempts)
        await fail(ctx, tx, { jobId: job.id, fileId: file.id, ownerId: file.owner_id }, reason, now)
        discard = derivedKeys(file)
        unpublished = { fileId: file.id, range: runsUpTo(file.revision, job.attempts) }
        return 'again'
      }
      const leaseUntil = now + leaseMs(ctx.config.conversionTimeoutMs)
      await queue.leaseJob(tx, job.id, { workerId, leaseUntil, now })
      await markConverting(tx, file.id, file.revision, now)
      return {
        jobId: job.id,
        fileId: file.id,
        revision: file.revision,
        fileName: file.name,
        blobKey: file.blob_key,
        attempt: job.attempts + 1,
        workerId,
      }
    })
    for (const key of discard) await discardBlob(ctx, key)
    if (unpublished) await dropProperties(ctx, unpublished.fileId, unpublished.range)
    if (step !== 'again') return step
  }
}

export async function recordProgress(ctx: Ctx, job: ClaimedJob, percent: number): Promise<void> {
  await reportProgress(ctx.db.kysely, job.fileId, job.revision, percent)
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

/** The blobs a conversion derived from the file (GLB, thumbnail): replaced or dropped with it. */
function derivedKeys(file: { optimized_key: string | null; thumbnail_key: string | null }): string[] {
  return [file.optimized_key, file.thumbnail_key].filter((key): key is string => key !== null)
}

/**
 * Runs `fn` in a transaction if the job is still ours and still converts the file's current
 * revision; otherwise drops the job (a newer revision or a deletion superseded it) and answers null.
 */
async function whileCurrent<T>(
  ctx: Ctx,
  job: ClaimedJob,
  fn: (tx: Tx, ownerId: string, oldKeys: string[]) => Promise<T>,
): Promise<T | null> {
  return ctx.db.kysely.transaction().execute(async (tx) => {
    await lockFile(ctx.db, tx, job.fileId)
    const row = await queue.findJob(tx, job.jobId)
    if (row?.state !== 'running' || row.leased_by !== job.workerId) return null
    const file = await conversionSource(tx, job.fileId)
    if (!file || file.revision !== job.revision) {
      await queue.deleteJob(tx, job.jobId)
      return null
    }
    return fn(tx, file.owner_id, derivedKeys(file))
  })
}

async function storeConversion(
  ctx: Ctx,
  job: ClaimedJob,
  outcome: Extract<RunOutcome, { kind: 'converted' }>,
): Promise<string> {
  const id = newId()
  const key = `optimized/${id}.glb`
  const created = [key]
  // The model's properties are written before the transaction below, in short ones of their own
  // (a building has a million), and published in it (modules/scene/properties.ts).
  const properties = { fileId: job.fileId, generation: propertyGeneration(job.revision, job.attempt) }
  let committed: { replaced: string[] } | null
  try {
    const stored = await ctx.blobs.put(key, createReadStream(outcome.glbPath))
    const thumbnail = await storeThumbnail(ctx, job, outcome, `thumbnails/${id}.png`)
    if (thumbnail.key) created.push(thumbnail.key)
    const counts = await stageSceneProperties(ctx.db, properties, propertyLines(outcome.propertiesPath))
    committed = await whileCurrent(ctx, job, async (tx, ownerId, oldKeys) => {
      const now = Date.now()
      await replaceSceneTree(tx, job.fileId, outcome.tree)
      await publishSceneProperties(tx, properties, counts)
      await markReady(tx, job.fileId, {
        roots: outcome.tree,
        optimized: { key, size: stored.size, sha256: stored.sha256 },
        thumbnail: thumbnail.key ? thumbnail : null,
        now,
      })
      await queue.finishJob(tx, job.jobId, { state: 'done', lastError: null, now })
      const record = await recordOf(tx, job.fileId, ownerId)
      // The spec's file_optimized shows `state: "converting"` with the scene tree filled: the
      // record as the optimized asset is stored. GET /file/:id answers `ready` from this commit on.
      await emit(ctx, tx, 'file_optimized', job.fileId, ownerId, { ...record, state: 'converting' })
      return { replaced: oldKeys }
    })
  } catch (error) {
    for (const blob of created) await discardBlob(ctx, blob)
    await dropProperties(ctx, job.fileId, ownRun(properties.generation))
    throw error
  }
  if (committed === null) {
    for (const blob of created) await discardBlob(ctx, blob)
    await dropProperties(ctx, job.fileId, ownRun(properties.generation))
    return 'superseded'
  }
  for (const blob of committed.replaced) await discardBlob(ctx, blob)
  await dropProperties(ctx, job.fileId, { from: 0, below: properties.generation })
  return 'ready'
}

/** The generation of one run only (another run of the same revision may be writing its own). */
const ownRun = (generation: number): GenerationRange => ({ from: generation, below: generation + 1 })

/**
 * The generations of a revision's runs up to `attempt`: once the job ends in `error`, the runs
 * before it crashed (their rows were never published) and no later one exists.
 */
const runsUpTo = (revision: number, attempt: number): GenerationRange => ({
  from: propertyGeneration(revision, 0),
  below: propertyGeneration(revision, attempt) + 1,
})

/**
 * Deletes model properties no one will read: a run's staged ones that were not published, older
 * generations once a newer one is. A failure is only logged: what is left is never read, and the
 * next publication (or the file's deletion) removes it.
 */
async function dropProperties(ctx: Ctx, fileId: string, range: GenerationRange): Promise<void> {
  try {
    await pruneSceneProperties(ctx.db.kysely, fileId, range)
  } catch (err) {
    ctx.log.warn({ err, fileId }, 'could not delete unused model properties')
  }
}

/** The nodes' properties the conversion child wrote, one JSON line per node (child.ts). */
async function* propertyLines(path: string): AsyncGenerator<NodePropertiesInput> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  })
  for await (const line of lines) if (line) yield JSON.parse(line) as NodePropertiesInput
}

/** Stores the run's thumbnail under `key`; a missing thumbnail is logged, never a failed conversion. */
async function storeThumbnail(
  ctx: Ctx,
  job: ClaimedJob,
  outcome: Extract<RunOutcome, { kind: 'converted' }>,
  key: string,
): Promise<{ key: string | null; size: number; sha256: string }> {
  if (outcome.thumbnailPath === null) {
    ctx.log.error({ jobId: job.jobId, fileId: job.fileId, detail: outcome.thumbnailError }, 'no thumbnail')
    return { key: null, size: 0, sha256: '' }
  }
  const stored = await ctx.blobs.put(key, createReadStream(outcome.thumbnailPath))
  return { key, size: stored.size, sha256: stored.sha256 }
}

async function finishFailed(ctx: Ctx, job: ClaimedJob, reason: string): Promise<string> {
  const committed = await whileCurrent(ctx, job, async (tx, ownerId, oldKeys) => {
    await fail(ctx, tx, { jobId: job.jobId, fileId: job.fileId, ownerId }, reason, Date.now())
    return { replaced: oldKeys }
  })
  await dropProperties(ctx, job.fileId, runsUpTo(job.revision, job.attempt))
  if (committed === null) return 'superseded'
  for (const blob of committed.replaced) await discardBlob(ctx, blob)
  return 'error'
}

/** The file ends in `error` (see markFailed); the old blobs are removed by the caller after commit. */
async function fail(
  ctx: Ctx,
  tx: Tx,
  target: { jobId: string; fileId: string; ownerId: string },
  reason: string,
  now: number,
): Promise<void> {
  await markFailed(tx, target.fileId, reason, now)
  await queue.finishJob(tx, target.jobId, { state: 'failed', lastError: reason, now })
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
    await queue.requeueJob(tx, job.jobId, {
      runAt: now + how.delayMs,
      lastError: how.lastError,
      giveBackAttempt: how.giveBackAttempt,
      now,
    })
    await markQueued(tx, job.fileId, job.revision, now)
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
    readerAccountIds: await fileReaderIds(tx, fileId),
    data,
  })
}
