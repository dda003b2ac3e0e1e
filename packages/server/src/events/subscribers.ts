// The outbox's hook: what another layer does with an event inside the transaction that emits it.
// The outbox writes the `events` row and the live stream's `event_stream` rows, nothing else; a
// subscriber (the delivery engine's fan-out, delivery/fan-out.ts) adds its own rows in the same
// transaction, so the change, the event and what the subscribers queued commit or roll back together.
//
// Subscribers register once per process at composition (server-context.ts createContext), not per
// call: the outbox then asks each for its hook on a database once (hookFor), and the subscriber
// answers with its implementation for that database (one per dialect).
import type { Config } from '../platform/config.ts'
import type { Db, Tx } from '../platform/db/index.ts'
import type { Waker } from '../platform/jobs.ts'

/** What emitEvent needs of the caller's context; an AppContext of app.ts carries the ports too. */
export interface EmitContext {
  db: Db
  config: Pick<Config, 'webhookRetryScheduleMs'>
  /**
   * A subscriber's port, opaque to the outbox (the delivery engine's hand-off,
   * delivery/hand-off-port.ts): the subscriber checks what it is. Absent: none.
   */
  deliveryHandOff?: unknown
  /** This process's live stream hub (stream/hub.ts), woken at commit on SQLite; absent: none. */
  eventStream?: Waker
}

/** An event as the outbox wrote it, with the accounts that may read its file. */
export interface EmittedEvent {
  id: string
  event: string
  fileId: string
  /** The envelope's `data`, as JSON text. */
  data: string
  runTimestamp: number
  createdAt: number
  /** The file's owner and the accounts it is shared with (deduplicated). */
  readers: readonly string[]
}

/**
 * SQL a hook adds to an outbox that writes each event in one statement (PostgreSQL's): CTEs after
 * the event's (`ev`) and its stream rows' (`st`), and columns of the statement's one answer row. Its
 * names carry a prefix of its own; its `?` parameters come after the outbox's, from `params`.
 */
export interface StatementPart {
  ctes: string
  columns: string
  params(ctx: EmitContext, event: EmittedEvent): unknown[]
}

/** A subscriber's part in the emits on one database. */
export interface EmitHook {
  /** Given to an outbox that writes the event in one statement; ignored by one that writes row by row. */
  readonly statementPart?: StatementPart
  /**
   * Runs in the emitting transaction once the event's rows (and `statementPart`, whose columns are
   * in `answer`) are written. Answers how many rows it queued for the event.
   */
  afterEvent(ctx: EmitContext, tx: Tx, event: EmittedEvent, answer: Record<string, unknown>): Promise<number>
}

export interface OutboxSubscriber {
  /** Its hook for the emits on `db`; asked once per database. */
  hookFor(db: Db): EmitHook
}

const subscribers = new Set<OutboxSubscriber>()
/** Bumped by every registration: hook lists made before it are made again. */
let generation = 0
const hooksByDb = new WeakMap<Db, { generation: number; hooks: readonly EmitHook[] }>()

/** Registers `subscriber` for every emit of this process (again: no change). */
export function onEmit(subscriber: OutboxSubscriber): void {
  if (subscribers.has(subscriber)) return
  subscribers.add(subscriber)
  generation += 1
}

/** The registered subscribers' hooks for `db`, each asked once. */
export function hooksFor(db: Db): readonly EmitHook[] {
  const known = hooksByDb.get(db)
  if (known?.generation === generation) return known.hooks
  const hooks = [...subscribers].map((subscriber) => subscriber.hookFor(db))
  hooksByDb.set(db, { generation, hooks })
  return hooks
}
