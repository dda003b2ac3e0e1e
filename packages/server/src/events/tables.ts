// The tables events/ owns (docs/architecture.md, "Who owns which table"): their row types, added to
// the kernel's one Kysely `Database` type by declaration merging, so platform/ never imports a feature.
// The conventions of platform/db/schema.ts hold (ms timestamps, 0/1 booleans, JSON as text).
import type { Generated } from 'kysely'

interface EventsTable {
  id: string
  event: string
  file_id: string
  /** JSON text of the event's `data`. */
  data: string
  run_timestamp: number
  created_at: number
}

/** The live event stream's log: who may read which event, in commit order (migration 0014). */
interface EventStreamTable {
  /** Assigned at insert; on PostgreSQL ordered by `tx` first (see the migration). */
  seq: Generated<number>
  /** PostgreSQL: the emitting transaction's id (xid8 as a number); SQLite: 0. */
  tx: number
  event_id: string
  /** An account that may read the event's file (owner, shares; finer rules for items). */
  account_id: string
}

/** A deleted file whose events are not all pruned yet (migration 0022, events/retention.ts). */
interface DeletedFilesTable {
  file_id: string
  deleted_at: number
}

declare module '../platform/db/schema.ts' {
  interface Database {
    events: EventsTable
    event_stream: EventStreamTable
    deleted_files: DeletedFilesTable
  }
}
