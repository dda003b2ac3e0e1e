// The outbox's SQL behind one interface, one implementation per database (sqlite/, postgres/),
// chosen once per opened database, as Kysely picks its dialect's parts once: no call below asks
// which database it runs on.
import { chosenPerDatabase, type Tx } from '../platform/db/index.ts'
import { openPostgresOutbox } from './postgres/outbox-store.ts'
import { openSqliteOutbox } from './sqlite/outbox-store.ts'
import type { EmitContext, EmitHook, EmittedEvent } from './subscribers.ts'

export interface Written {
  /** Whether an `event_stream` row was written (an enabled reader). */
  streamed: boolean
  /** The columns the hooks' statement parts answered (empty where the store writes row by row). */
  answer: Record<string, unknown>
}

export interface OutboxStore {
  /**
   * Writes the event row and its stream rows, one per enabled reader (and, in a store that writes
   * the event in one statement, the hooks' statement parts).
   */
  writeEvent(ctx: EmitContext, tx: Tx, event: EmittedEvent, hooks: readonly EmitHook[]): Promise<Written>
  /** An event row alone: no stream row, no hook (a webhook's test delivery, delivery/test-delivery.ts). */
  writeEventRow(tx: Tx, event: Omit<EmittedEvent, 'readers'>): Promise<void>
  /**
   * Whether emitEvent wakes this process's stream hub at commit; false where the statement sends
   * a NOTIFY that wakes every process's hub (PostgreSQL).
   */
  readonly wakesHubAtCommit: boolean
}

/** `db`'s outbox store, chosen when first asked for (once per opened database). */
export const outboxStore = chosenPerDatabase<OutboxStore>({
  sqlite: openSqliteOutbox,
  postgres: openPostgresOutbox,
})
