// A file's conversion state: queued (upload, revision, retry) → converting → ready | error. The
// conversion module moves it only through these, in transactions that hold lockFile (progress
// alone goes without: it never changes the state and is ignored once the revision left it).
import type { Executor } from '../../platform/db/index.ts'
import * as repo from './repository.ts'

/** What a conversion needs of the file: its current revision, blob and previous optimized asset. */
export type ConversionSource = NonNullable<Awaited<ReturnType<typeof repo.findConversionSource>>>

export function conversionSource(db: Executor, fileId: string): Promise<ConversionSource | undefined> {
  return repo.findConversionSource(db, fileId)
}

/**
 * Revision `revision` (the file's revision number, not its `__v`) is being converted; no-op once a
 * newer revision exists. Progress keeps its value:
 * 0 for a first run, the earlier run's high-water mark for a retry (it never goes backwards).
 */
export async function markConverting(
  db: Executor,
  fileId: string,
  revision: number,
  now: number,
): Promise<void> {
  await repo.setRevisionState(db, fileId, revision, { state: 'converting', now })
}

/** Revision `revision` waits for another run (progress held); no-op once a newer revision exists. */
export async function markQueued(db: Executor, fileId: string, revision: number, now: number): Promise<void> {
  await repo.setRevisionState(db, fileId, revision, { state: 'queued', now })
}

/** Progress (percent) of a running conversion; ignored once the revision left `converting`. */
export async function reportProgress(
  db: Executor,
  fileId: string,
  revision: number,
  percent: number,
): Promise<void> {
  await repo.setConvertingProgress(db, fileId, revision, percent)
}

const NO_ASSET: repo.OptimizedAsset = { key: null, size: 0, sha256: '' }

/** The conversion succeeded: `ready` with its optimized asset, thumbnail and scene tree roots. */
export async function markReady(
  db: Executor,
  fileId: string,
  result: {
    roots: readonly { id: string; name: string }[]
    optimized: repo.OptimizedAsset
    /** null when the conversion made no thumbnail. */
    thumbnail: repo.OptimizedAsset | null
    now: number
  },
): Promise<void> {
  await repo.storeConversionOutcome(db, fileId, {
    state: 'ready',
    error: '',
    ...result,
    thumbnail: result.thumbnail ?? NO_ASSET,
  })
}

/**
 * The conversion failed for `reason`: `error`, and what an earlier revision's conversion left (asset,
 * thumbnail, tree roots) is cleared so nothing stale is served. The caller removes the old blobs after
 * commit.
 */
export async function markFailed(db: Executor, fileId: string, reason: string, now: number): Promise<void> {
  await repo.storeConversionOutcome(db, fileId, {
    state: 'error',
    error: reason,
    roots: [],
    optimized: NO_ASSET,
    thumbnail: NO_ASSET,
    now,
  })
}

/**
 * The invariant of conversion states: every file `queued` or `converting` has a live job for its
 * current revision (queued, or running — under a lease, or one that ran out and is taken over next),
 * so something will finish it. Answers the IDs of files that break it (none, when all is well); for
 * tests and `bench/chaos.ts`.
 */
export function filesWithoutLiveConversion(db: Executor): Promise<string[]> {
  return repo.findFilesWithoutLiveConversion(db)
}
