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
  /** The sweep used its whole budget: more may be due (EventRetention sweeps again soon). */
  more: boolean
}

// No index leads from a file to its events (migration 0009 dropped it: it cost every emit a B-tree
// page); the one from an event to its deliveries is back (0022) for the foreign key's checks when
// events are deleted. The deliveries of a span of events are found by their primary key anyway: an
// event and its deliveries are written with the same `now` (outbox.ts), and record ids begin with
// their second (platform/ids.ts), so they are the deliveries of that span of seconds.

/** The smallest record id of the second `ms` falls in: every id made before that second is smaller. */
function firstIdOfSecond(ms: number): string {
  return `${Math.max(0, Math.floor(ms / 1000))
    .toString(16)
    .padStart(8, '0')}${'0'.repeat(16)}`
}

/** The millisecond at which the second of record id `id` starts. */
const secondOf = (id: string) => Number.parseInt(id.slice(0, 8), 16) * 1000

/**
 * Events (and deliveries) with ids below this are past retention, by age or by count. By count
 * the cut falls on a second boundary: the second of the eventMaxRows-th newest event is kept
 * whole, so up to a second's worth of events more than the cap may stay.
 */
async function cutoffId(db: Executor, config: RetentionConfig, now: number): Promise<string> {
  const byAge = firstIdOfSecond(now - config.eventRetentionMs)
  const last = await db
    .selectFrom('events')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(config.eventMaxRows - 1)
    .executeTakeFirst()
  const byCount = last ? firstIdOfSecond(secondOf(last.id)) : ''
  return byCount > byAge ? byCount : byAge
}

class Budget {
  batches = BATCHES_PER_SWEEP
  readonly pruned: Pruned = { events: 0, deliveries: 0, streamRows: 0, more: false }
  take(): boolean {
    this.batches -= 1
    if (this.batches < 0) this.pruned.more = true
    return this.batches >= 0
  }
}

/** Finished deliveries with ids in [from, below) (and of `eventIds` when given), batch by batch. */
async function pruneDeliveries(db: Db, budget: Budget, span: Span, eventIds?: string[]): Promise<void> {
  while (budget.take()) {
    const batch = db.kysely
      .selectFrom('deliveries')
      .select('id')
      .where('id', '>=', span.from)
      .where('id', '<', span.below)
      .where('status', 'in', FINISHED)
      .$if(eventIds !== undefined, (q) => q.where('event_id', 'in', eventIds ?? []))
      .limit(BATCH)
    const result = await db.kysely.deleteFrom('deliveries').where('id', 'in', batch).executeTakeFirst()
    const n = Number(result.numDeletedRows)
    budget.pruned.deliveries += n
    if (n < BATCH) return
  }
}

interface Span {
  from: string
  below: string
}

/** Events below `below` without a delivery left (only unfinished ones are, by now), batch by batch. */
async function pruneOldEvents(db: Db, budget: Budget, below: string): Promise<void> {
  while (budget.take()) {
    const rows = await db.kysely
      .selectFrom('events')
      .select('id')
      .where('id', '<', below)
      .where('id', 'not in', (eb) => eb.selectFrom('deliveries').select('event_id').where('id', '<', below))
      .orderBy('id')
      .limit(BATCH)
      .execute()
    if (rows.length > 0)
      await deleteEvents(
        db,
        budget,
        rows.map((row) => row.id),
      )
    if (rows.length < BATCH) return
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

/**
 * The events of files deleted at least TESSERA_EVENT_DELETED_FILE_RETENTION ago: one pass over the
 * events in id order (no index leads from a file to its events), batch by batch; each batch's
 * finished deliveries go (found in the batch's span of seconds), then the events left without any.
 * A tombstone goes once a whole pass found nothing of its file still waiting for a delivery.
 */
async function pruneDeletedFiles(db: Db, budget: Budget, goneBefore: number): Promise<void> {
  const due = await db.kysely
    .selectFrom('deleted_files')
    .select('file_id')
    .where('deleted_at', '<=', goneBefore)
    .limit(1)
    .executeTakeFirst()
  if (!due) return // no pass over the events then
  const waiting = new Set<string>()
  let after = ''
  for (;;) {
    if (!budget.take()) return // the pass is unfinished: tombstones stay for the next sweep
    const rows = await db.kysely
      .selectFrom('events')
      .select(['id', 'file_id'])
      .where('id', '>', after)
      .where('file_id', 'in', (eb) =>
        eb.selectFrom('deleted_files').select('file_id').where('deleted_at', '<=', goneBefore),
      )
      .orderBy('id')
      .limit(BATCH)
      .execute()
    const last = rows.at(-1)
    if (!last) break
    after = last.id
    const ids = rows.map((row) => row.id)
    const span = {
      from: firstIdOfSecond(secondOf(ids[0] ?? '')),
      below: firstIdOfSecond(secondOf(last.id) + 1000),
    }
    await pruneDeliveries(db, budget, span, ids)
    const left = await db.kysely
      .selectFrom('deliveries')
      .select('event_id')
      .where('id', '>=', span.from)
      .where('id', '<', span.below)
      .where('event_id', 'in', ids)
      .execute()
    const kept = new Set(left.map((row) => row.event_id))
    for (const row of rows) if (kept.has(row.id)) waiting.add(row.file_id)
    const gone = ids.filter((id) => !kept.has(id))
    if (gone.length > 0) await deleteEvents(db, budget, gone)
    if (rows.length < BATCH) break
  }
  await db.kysely
    .deleteFrom('deleted_files')
    .where('deleted_at', '<=', goneBefore)
    .$if(waiting.size > 0, (q) => q.where('file_id', 'not in', [...waiting]))
    .execute()
}

/** One sweep: at most BATCHES_PER_SWEEP statements of at most BATCH rows each. */
export async function pruneEvents(db: Db, config: RetentionConfig, now = Date.now()): Promise<Pruned> {
  const budget = new Budget()
  const below = await cutoffId(db.kysely, config, now)
  await pruneDeliveries(db, budget, { from: '', below })
  await pruneOldEvents(db, budget, below)
  await pruneDeletedFiles(db, budget, now - config.eventDeletedFileRetentionMs)
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
const SWEEP_EVERY_MS = 10 * 60_000
/** The pause before the next sweep when one used its whole budget (a backlog is worked off). */
const BACKLOG_PAUSE_MS = 1000

/**
 * Runs pruneEvents now and every SWEEP_EVERY_MS until stopped; again after BACKLOG_PAUSE_MS while
 * a sweep finds more than its budget.
 */
export class EventRetention {
  #timer: NodeJS.Timeout | null = null
  #backlog: NodeJS.Timeout | null = null
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
    this.#timer = setInterval(() => this.#queue(), SWEEP_EVERY_MS)
    this.#timer.unref()
    this.#queue()
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer)
    if (this.#backlog) clearTimeout(this.#backlog)
    this.#timer = null
    this.#backlog = null
    await this.#sweep
  }

  #queue(): void {
    this.#sweep = this.#sweep.then(() => this.#once())
  }

  async #once(): Promise<void> {
    if (!this.#timer) return // stopped meanwhile
    try {
      const pruned = await pruneEvents(this.#db, this.#config)
      if (pruned.events + pruned.deliveries + pruned.streamRows > 0)
        this.#log.info({ pruned }, 'event log: pruned past retention')
      if (pruned.more && this.#timer && !this.#backlog) {
        this.#backlog = setTimeout(() => {
          this.#backlog = null
          this.#queue()
        }, BACKLOG_PAUSE_MS)
        this.#backlog.unref()
      }
    } catch (err) {
      this.#log.warn({ err }, 'event log: pruning failed; the next sweep tries again')
    }
  }
}
