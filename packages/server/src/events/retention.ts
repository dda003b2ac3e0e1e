// What the event log keeps. Every event stays while one of its deliveries may still be sent
// (pending, or leased for an attempt: the retry schedule runs up to ~32 h by default). Past that:
// - by age: events older than TESSERA_EVENT_RETENTION go, with their finished deliveries (and so
//   their lines of the delivery log, GET /webhook/:id/deliveries, and their attempts, which cascade)
//   and their rows of the live stream's log (a Last-Event-ID that old gets `event: reset`);
// - by count: beyond TESSERA_EVENT_MAX_ROWS events, the oldest go the same way;
// - a deleted file's events go once the file has been gone TESSERA_EVENT_DELETED_FILE_RETENTION
//   (nobody may read them any more; only pending deliveries still need them).
// A paused delivery (its webhook disabled) is finished here: it would otherwise keep its event for
// as long as the webhook stays disabled. Work is done in batches of BATCH rows, one short statement
// each, at most BATCHES_PER_SWEEP per sweep: the next sweep goes on where this one stopped.
import type { Logger } from 'pino'
import type { Config } from '../platform/config.ts'
import type { Db, Executor } from '../platform/db/index.ts'

export type RetentionConfig = Pick<
  Config,
  'eventRetentionMs' | 'eventMaxRows' | 'eventDeletedFileRetentionMs'
>

/** Statuses after which a delivery sends nothing more by itself. */
const FINISHED = ['succeeded', 'failed', 'paused']
const BATCH = 500
const BATCHES_PER_SWEEP = 40

export interface Pruned {
  events: number
  deliveries: number
  streamRows: number
}

/**
 * The smallest record id of the second `ms` falls in (platform/ids.ts: ids begin with their second
 * in hex): every id made before that second is smaller.
 */
export function firstIdOfSecond(ms: number): string {
  return `${Math.max(0, Math.floor(ms / 1000))
    .toString(16)
    .padStart(8, '0')}${'0'.repeat(16)}`
}

/** Events with ids below this are past retention, by age or by count. */
async function cutoffId(db: Executor, config: RetentionConfig, now: number): Promise<string> {
  const byAge = firstIdOfSecond(now - config.eventRetentionMs)
  // The eventMaxRows-th newest event: the ones below it are beyond the cap.
  const last = await db
    .selectFrom('events')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(config.eventMaxRows - 1)
    .executeTakeFirst()
  return last && last.id > byAge ? last.id : byAge
}

class Budget {
  batches = BATCHES_PER_SWEEP
  readonly pruned: Pruned = { events: 0, deliveries: 0, streamRows: 0 }
  take(): boolean {
    this.batches -= 1
    return this.batches >= 0
  }
}

/** Finished deliveries of the events below `below` (or of one file's events), batch by batch. */
async function pruneDeliveries(db: Db, budget: Budget, scope: { below?: string; fileId?: string }) {
  while (budget.take()) {
    const batch = db.kysely
      .selectFrom('deliveries as d')
      .select('d.id')
      .where('d.status', 'in', FINISHED)
      .$if(scope.below !== undefined, (q) => q.where('d.event_id', '<', scope.below ?? ''))
      .$if(scope.fileId !== undefined, (q) =>
        q.where('d.event_id', 'in', (eb) =>
          eb
            .selectFrom('events')
            .select('id')
            .where('file_id', '=', scope.fileId ?? ''),
        ),
      )
      .limit(BATCH)
    const result = await db.kysely.deleteFrom('deliveries').where('id', 'in', batch).executeTakeFirst()
    const n = Number(result.numDeletedRows)
    budget.pruned.deliveries += n
    if (n < BATCH) return
  }
}

/** Events below `below` (or of one file) without a delivery left, with their stream rows. */
async function pruneEventRows(db: Db, budget: Budget, scope: { below?: string; fileId?: string }) {
  while (budget.take()) {
    const rows = await db.kysely
      .selectFrom('events as e')
      .select('e.id')
      .$if(scope.below !== undefined, (q) => q.where('e.id', '<', scope.below ?? ''))
      .$if(scope.fileId !== undefined, (q) => q.where('e.file_id', '=', scope.fileId ?? ''))
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))),
      )
      .orderBy('e.id')
      .limit(BATCH)
      .execute()
    const ids = rows.map((row) => row.id)
    if (ids.length > 0) await deleteEvents(db, budget, ids)
    if (ids.length < BATCH) return
  }
}

async function deleteEvents(db: Db, budget: Budget, ids: string[]): Promise<void> {
  await db.kysely.transaction().execute(async (tx) => {
    // SQLite gives out max(seq) + 1 (migration 0020): the newest row stays, or a seq would repeat.
    const streamed = await tx
      .deleteFrom('event_stream')
      .where('event_id', 'in', ids)
      .where('seq', '<', (eb) => eb.selectFrom('event_stream').select((s) => s.fn.max('seq').as('top')))
      .executeTakeFirst()
    const events = await tx.deleteFrom('events').where('id', 'in', ids).executeTakeFirst()
    budget.pruned.streamRows += Number(streamed.numDeletedRows)
    budget.pruned.events += Number(events.numDeletedRows)
  })
}

/** Forgets the events of deleted files that have been gone long enough, file by file. */
async function pruneDeletedFiles(db: Db, budget: Budget, config: RetentionConfig, now: number) {
  const files = await db.kysely
    .selectFrom('deleted_files')
    .select('file_id')
    .where('deleted_at', '<=', now - config.eventDeletedFileRetentionMs)
    .orderBy('deleted_at')
    .limit(BATCH)
    .execute()
  for (const { file_id: fileId } of files) {
    if (budget.batches <= 0) return
    await pruneDeliveries(db, budget, { fileId })
    await pruneEventRows(db, budget, { fileId })
    const left = await db.kysely
      .selectFrom('events')
      .select('id')
      .where('file_id', '=', fileId)
      .limit(1)
      .executeTakeFirst()
    if (!left) await db.kysely.deleteFrom('deleted_files').where('file_id', '=', fileId).execute()
  }
}

/** One sweep: at most BATCHES_PER_SWEEP statements of at most BATCH rows each. */
export async function pruneEvents(db: Db, config: RetentionConfig, now = Date.now()): Promise<Pruned> {
  const budget = new Budget()
  const below = await cutoffId(db.kysely, config, now)
  await pruneDeliveries(db, budget, { below })
  await pruneEventRows(db, budget, { below })
  await pruneDeletedFiles(db, budget, config, now)
  return budget.pruned
}

/** Called in the transaction that deletes the file's row: its events go once delivered. */
export async function noteFileDeleted(tx: Executor, fileId: string, now: number): Promise<void> {
  await tx
    .insertInto('deleted_files')
    .values({ file_id: fileId, deleted_at: now })
    .onConflict((oc) => oc.column('file_id').doNothing())
    .execute()
}

/** How often a process with a delivery worker sweeps. */
export const SWEEP_EVERY_MS = 10 * 60_000

/** Runs pruneEvents now and every SWEEP_EVERY_MS until stopped. */
export class EventRetention {
  #timer: NodeJS.Timeout | null = null
  #sweep: Promise<void> = Promise.resolve()

  readonly #db: Db
  readonly #config: RetentionConfig
  readonly #log: Logger

  constructor(db: Db, config: RetentionConfig, log: Logger) {
    this.#db = db
    this.#config = config
    this.#log = log
  }

  start(): void {
    if (this.#timer) return
    const tick = () => {
      this.#sweep = this.#sweep.then(() => this.#once())
    }
    this.#timer = setInterval(tick, SWEEP_EVERY_MS)
    this.#timer.unref()
    tick()
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
    await this.#sweep
  }

  async #once(): Promise<void> {
    try {
      const pruned = await pruneEvents(this.#db, this.#config)
      if (pruned.events + pruned.deliveries + pruned.streamRows > 0)
        this.#log.info({ pruned }, 'event log: pruned past retention')
    } catch (err) {
      this.#log.warn({ err }, 'event log: pruning failed; the next sweep tries again')
    }
  }
}
